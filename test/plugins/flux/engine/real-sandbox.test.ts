/**
 * The engine on the real service registry and sandbox (worker pool + isolates): expressions,
 * inputs and conditions evaluated in the package's isolate, actions run as services, `$exception`
 * from a real thrown error, and `ctx.flux.sendEvent` from service code.
 */
import { expect } from 'chai';
import type { JunctionPlugin } from '../../../../core/plugins/types.js';
import { createFluxEngine, type FluxEngineHandle } from '../../../../plugins/flux/engine/host.js';
import { manifest, servicesApp, writePackage, type ServicesApp } from '../../../core/services/helpers.js';

const WORKFLOW = `
triggers: [order.placed]
states:
  - name: check
    action:
      type: invokeCode
      className: orders.Checks
      methodName: check
      inputs:
        - { type: set, expression: "vars.lines.map(l => l.price * l.qty)", to: [amounts] }
        - { type: set, expression: "web", evaluate: false, to: [channel] }
    transitions:
      - { to: await, condition: "vars.total < 100 && output.ok" }
      - { to: notify }
  - name: await
    transitions:
      - { event: approve, to: done, condition: "event.input.by !== vars.customer" }
      - { at: "vars.total > 50 ? new Date(Date.now() + 60000) : null", to: done }
  - name: notify
    action: { type: invokeService, service: orders.Checks.notify }
    transitions:
      - { event: $exception, to: broken }
  - name: broken
  - name: done
    action: { type: invokeService, service: orders.Checks.signal }
`;

const CODE = `
export async function check(input, ctx) {
  const total = input.amounts.reduce((s, a) => s + a, 0);
  return { total, ok: input.channel === 'web', user: ctx.user.username };
}
export async function notify(input) {
  throw Object.assign(new Error('no mailer for ' + input.customer), { name: 'MailError' });
}
export async function signal(input, ctx) {
  if (input.signalTo) return { sent: await ctx.flux.sendEvent({ event: 'approve', contextId: input.signalTo, input: { by: 'robot' } }) };
  return { sent: null };
}
`;

describe('flux engine on the real sandbox', function () {
  this.timeout(30_000);
  let app: ServicesApp;
  let handle: FluxEngineHandle;

  before(async () => {
    const plugin: JunctionPlugin = {
      name: 'flux-engine-test',
      register(junction) {
        handle = createFluxEngine(junction);
      },
      start: () => handle.start(),
      stop: () => handle.stop(),
    };
    app = await servicesApp({ start: false, plugins: [plugin], config: { sandbox: { timeoutMs: 300 } } });
    writePackage(app.config.servicesDir, 'shop', {
      'package.yaml': manifest('shop'),
      'code/orders/Checks.js': CODE,
      'flux/orders/Order.flux.yaml': WORKFLOW,
    });
    writePackage(app.config.servicesDir, 'hostile', {
      'package.yaml': manifest('hostile'),
      'code/Spin.js': 'export async function forever() { for (;;) {} }',
      'flux/Spin.flux.yaml': [
        'states:',
        '  - name: spin',
        '    action: { type: invokeCode, className: Spin, methodName: forever }',
        '    transitions:',
        '      - { event: $exception, to: caught }',
        '      - { to: never }',
        '  - name: caught',
        '    transitions:',
        '      - { to: bad, condition: "vars.nope.deeper" }',
        '  - name: bad',
        '  - name: never',
      ].join('\n'),
    });
    writePackage(app.config.servicesDir, 'broken', {
      'package.yaml': manifest('broken'),
      'flux/Bad.flux.yaml': 'states:\n  - name: a\n    transitions: [{ to: b }]\n',
    });
    await app.start({ listen: false });
  });

  after(() => app.stop());

  it('reports an invalid workflow as a failed deploy naming file and state', () => {
    const info = app.services.info('broken')!;
    expect(info.status).to.equal('failed');
    expect(info.errors.join('\n')).to.contain(
      'flux/Bad.flux.yaml: state "a": transition #1: `to` names unknown state "b"',
    );
  });

  it('evaluates inputs and conditions in the sandbox and runs the action as a service', async () => {
    const engine = handle.engine;
    const ref = await engine.execute({
      packageName: 'shop',
      fluxName: 'orders.Order',
      input: {
        customer: 'ann',
        lines: [
          { price: 10, qty: 2 },
          { price: 5, qty: 1 },
        ],
      },
      user: { username: 'ann', groups: [] },
    });
    expect(ref.state).to.equal('await');
    const ctx = (await engine.getContext(ref.contextId))!;
    expect(ctx.vars).to.include({ total: 25, ok: true, user: 'ann' });
    expect(ctx.status).to.equal('WAITING');
    const self = await engine.sendEvent({ event: 'approve', contextId: ref.contextId, input: { by: 'ann' } });
    expect(self.notDelivered).to.equal(true);
    const other = await engine.sendEvent({
      event: 'approve',
      contextId: ref.contextId,
      input: { by: 'bob' },
    });
    expect(other.transitions).to.deep.equal([{ contextId: ref.contextId, state: 'done' }]);
  });

  it('arms an `at` deadline computed in the sandbox', async () => {
    const ref = await handle.engine.execute({
      packageName: 'shop',
      fluxName: 'orders.Order',
      input: { lines: [{ price: 30, qty: 2 }] },
    });
    const ctx = (await handle.engine.getContext(ref.contextId))!;
    expect(ctx.status).to.equal('WAITING_UNTIL');
    expect(ctx.nextRun).to.be.within(Date.now(), Date.now() + 61_000);
  });

  it('takes $exception when the service throws', async () => {
    const ref = await handle.engine.execute({
      packageName: 'shop',
      fluxName: 'orders.Order',
      input: { customer: 'zed', lines: [{ price: 500, qty: 1 }] },
    });
    expect(ref.state).to.equal('broken');
    const ctx = (await handle.engine.getContext(ref.contextId))!;
    expect(ctx.vars.$fluxException).to.deep.include({ message: 'no mailer for zed' });
    expect((ctx.vars.$fluxException as any).fluxStackTrace).to.deep.equal([
      { fluxName: 'orders.Order', stateName: 'notify', stateIndex: 2 },
    ]);
  });

  it('lets service code send an event with ctx.flux.sendEvent, and starts contexts by trigger', async () => {
    const waiting = await handle.engine.execute({
      packageName: 'shop',
      fluxName: 'orders.Order',
      input: { customer: 'ann', lines: [{ price: 1, qty: 1 }] },
    });
    const signaller = await handle.engine.execute({
      packageName: 'shop',
      fluxName: 'orders.Order',
      startState: 'done',
      input: { signalTo: waiting.contextId },
    });
    const ctx = (await handle.engine.getContext(signaller.contextId))!;
    expect((ctx.vars.sent as any).transitions).to.deep.equal([
      { contextId: waiting.contextId, state: 'done' },
    ]);
    expect((await handle.engine.getContext(waiting.contextId))!.status).to.equal('DONE');

    const started = await handle.engine.sendEvent({
      event: 'order.placed',
      input: { lines: [{ price: 2, qty: 1 }] },
    });
    expect(started.executions).to.have.length(1);
    const triggered = (await handle.engine.getContext(started.executions[0]!.contextId))!;
    expect(triggered.vars.$triggerFluxEvent).to.equal('order.placed');
  });

  it('survives a runaway action (time-out taken as $exception) and a throwing condition (FAILED)', async () => {
    const ref = await handle.engine.execute({ packageName: 'hostile', fluxName: 'Spin' });
    const ctx = (await handle.engine.getContext(ref.contextId))!;
    expect((ctx.vars.$fluxException as any).type).to.equal('JCT_SANDBOX_TIMEOUT');
    expect(ctx.currentState).to.equal('caught');
    expect(ctx.status).to.equal('FAILED');
    expect(ctx.error!.message).to.contain('vars.nope.deeper');
  });
});

import { expect } from 'chai';
import { flux, harness, type Harness } from './harness.js';

const TICKET = `
triggers: [ticket.opened]
states:
  - name: open
    transitions:
      - { event: close, to: closed }
      - { event: $else, to: open }
  - name: closed
`;

const SLOW = `
states:
  - name: wait
    transitions:
      - { event: step, to: work }
  - name: work
    action: { type: invokeCode, className: Slow, methodName: run }
    transitions:
      - { to: wait }
`;

describe('flux engine: events', () => {
  let h: Harness;

  beforeEach(async () => {
    h = await harness();
    await h.services.deploy('desk', { ...flux('Ticket', TICKET) }, []);
  });

  afterEach(async () => {
    await h.engine.stop();
  });

  it('starts a context for every workflow whose triggers contain the event, with $triggerFluxEvent', async () => {
    const result = await h.engine.sendEvent({
      event: 'ticket.opened',
      input: { title: 'printer' },
      tags: ['t1'],
    });
    expect(result.transitions).to.deep.equal([]);
    expect(result.executions).to.have.length(1);
    const ctx = (await h.engine.getContext(result.executions[0]!.contextId))!;
    expect(ctx.vars).to.deep.equal({ title: 'printer', $triggerFluxEvent: 'ticket.opened' });
    expect(ctx.tags).to.deep.equal(['t1']);
    expect(result.executions[0]!.state).to.equal('open');
  });

  it('without contextId and tags reaches every context waiting for that event, by index', async () => {
    const a = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket' });
    const b = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket' });
    await h.engine.terminate(b.contextId);
    const c = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket' });
    const result = await h.engine.sendEvent({ event: 'close' });
    expect(result.transitions).to.deep.equal([
      { contextId: a.contextId, state: 'closed' },
      { contextId: c.contextId, state: 'closed' },
    ]);
    // `$else` does not make a context a target of every broadcast event.
    expect((await h.engine.sendEvent({ event: 'ping' })).transitions).to.deep.equal([]);
  });

  it('with tags reaches only the waiting contexts carrying all of them ($else included)', async () => {
    const a = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket', tags: ['red', 'big'] });
    await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket', tags: ['red'] });
    const c = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket', tags: ['big'] });
    await h.engine.addTags(c.contextId, ['red']);
    const result = await h.engine.sendEvent({ event: 'ping', tags: ['big', 'red'] });
    expect(result.transitions).to.deep.equal([
      { contextId: a.contextId, state: 'open' },
      { contextId: c.contextId, state: 'open' },
    ]);
    await h.engine.removeTags(c.contextId, ['big']);
    const again = await h.engine.sendEvent({ event: 'close', tags: ['big', 'red'] });
    expect(again.transitions).to.deep.equal([{ contextId: a.contextId, state: 'closed' }]);
  });

  it('answers a retried execute or event with the same Idempotency-Key with the first result', async () => {
    const first = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket', idempotencyKey: 'k1' });
    const retry = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket', idempotencyKey: 'k1' });
    expect(retry).to.deep.equal(first);
    expect(await h.engine.listContexts({ limit: 10, page: 0 })).to.have.length(1);

    const e1 = await h.engine.sendEvent({ event: 'close', contextId: first.contextId, idempotencyKey: 'k2' });
    const e2 = await h.engine.sendEvent({ event: 'close', contextId: first.contextId, idempotencyKey: 'k2' });
    expect(e2).to.deep.equal(e1);
    expect(e1.transitions).to.deep.equal([{ contextId: first.contextId, state: 'closed' }]);

    const [t1, t2] = await Promise.all([
      h.engine.sendEvent({ event: 'ticket.opened', idempotencyKey: 'k3' }),
      h.engine.sendEvent({ event: 'ticket.opened', idempotencyKey: 'k3' }),
    ]);
    expect(t2).to.deep.equal(t1);
    expect(await h.engine.listContexts({ limit: 10, page: 0 })).to.have.length(2);
  });

  it('forgets idempotency keys after their time-to-live', async () => {
    const first = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket', idempotencyKey: 'old' });
    await h.clock.advance(25 * 3600_000);
    await h.engine.idle();
    const later = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket', idempotencyKey: 'old' });
    expect(later.contextId).to.not.equal(first.contextId);
  });

  it('a retry after a crash mid-request acts only where the first attempt did not', async () => {
    const a = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket', tags: ['x'] });
    const b = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket', tags: ['x'] });
    // The first attempt moved `a` (its marker is in a's batch) and then the process died before
    // the answer was recorded: modelled by writing the marker and the move by hand.
    await h.engine.sendEvent({ event: 'close', contextId: a.contextId });
    const idem = h.storage.store('flux').store('idempotency');
    await idem.put(`event/k9/c/${String(a.contextId).padStart(16, '0')}`, {
      contextId: a.contextId,
      state: 'closed',
    });
    const result = await h.engine.sendEvent({ event: 'close', tags: ['x'], idempotencyKey: 'k9' });
    expect(result.transitions).to.deep.equal([
      { contextId: a.contextId, state: 'closed' },
      { contextId: b.contextId, state: 'closed' },
    ]);
  });

  it('serializes events for one context and runs many contexts in parallel', async () => {
    let running = 0;
    let maxRunning = 0;
    const order: number[] = [];
    const gates: (() => void)[] = [];
    h.services.define('lab', 'Slow.run', async (input) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise<void>((resolve) => gates.push(resolve));
      order.push(input.n);
      running--;
      return { n: input.n, count: (input.count ?? 0) + 1 };
    });
    await h.services.deploy('lab', flux('Slow', SLOW));
    const one = await h.engine.execute({ packageName: 'lab', fluxName: 'Slow' });
    const sends = [1, 2, 3].map((n) =>
      h.engine.sendEvent({ event: 'step', contextId: one.contextId, input: { n } }),
    );
    const release = async () => {
      while (order.length < 3) {
        await new Promise((resolve) => setImmediate(resolve));
        gates.shift()?.();
      }
    };
    await Promise.all([...sends, release()]);
    expect(maxRunning).to.equal(1);
    expect(order).to.deep.equal([1, 2, 3]);
    expect((await h.engine.getContext(one.contextId))!.vars.count).to.equal(3);

    const others = await Promise.all(
      [1, 2, 3, 4].map(() => h.engine.execute({ packageName: 'lab', fluxName: 'Slow' })),
    );
    maxRunning = 0;
    const parallel = others.map((o, n) =>
      h.engine.sendEvent({ event: 'step', contextId: o.contextId, input: { n } }),
    );
    while (gates.length < 4) await new Promise((resolve) => setImmediate(resolve));
    expect(maxRunning).to.equal(4);
    gates.splice(0).forEach((g) => g());
    await Promise.all(parallel);
  });

  it('lets a service send events through ctx.flux.sendEvent, even to its own context', async () => {
    const send = h.services.hostFunctions.get('flux.sendEvent')!;
    h.services.define('lab', 'Slow.run', async (input) => {
      const r = (await send(
        { event: 'step', contextId: input.self },
        { package: 'lab', user: { username: 'svc', groups: [] } },
      )) as any;
      return { queued: r.queued };
    });
    await h.services.deploy('lab', flux('Slow', SLOW));
    const { contextId } = await h.engine.execute({
      packageName: 'lab',
      fluxName: 'Slow',
      input: { self: 0 },
    });
    const other = await h.engine.execute({ packageName: 'desk', fluxName: 'Ticket' });
    const viaService = (await send(
      { event: 'close', contextId: other.contextId },
      { package: 'lab', user: { username: 'svc', groups: [] } },
    )) as any;
    expect(viaService.transitions).to.deep.equal([{ contextId: other.contextId, state: 'closed' }]);
    // The action sends `step` to its own context: queued behind the running step, not a deadlock.
    await h.engine.sendEvent({ event: 'step', contextId, input: { self: contextId } });
    const ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.vars.queued).to.deep.equal([contextId]);
    const bad = await send({ event: '' }, { package: 'lab', user: { username: 'svc', groups: [] } }).catch(
      (e: any) => e.code,
    );
    expect(bad).to.equal('JCT_FLUX_EVENT_INVALID');
    await h.engine.terminate(contextId).catch(() => undefined);
    await h.engine.idle();
  });
});

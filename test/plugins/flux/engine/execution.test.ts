import { expect } from 'chai';
import { flux, harness, type Harness } from './harness.js';

const ORDER = `
comment: Approves an order
states:
  - name: validate
    action:
      type: invokeCode
      className: approval.Checks
      methodName: validate
      inputs:
        - { type: set, expression: "vars.orderId", evaluate: true, to: [orderId] }
        - { type: set, expression: "manual", evaluate: false, to: [meta, source] }
    transitions:
      - { to: await, condition: "vars.valid === true" }
      - { to: rejected }
  - name: await
    transitions:
      - { event: approve, to: approved, condition: "event.input.amount < 1000" }
      - { event: approve, to: review }
      - { event: reject, to: rejected }
      - { event: $else, to: await }
  - name: review
    transitions:
      - { event: approve, to: approved }
  - name: approved
  - name: rejected
    action: { type: invokeService, service: approval.Notify.rejected }
    transitions:
      - { event: $exception, to: failedNotice }
  - name: failedNotice
`;

describe('flux engine: execution', () => {
  let h: Harness;
  let notifyFails = false;

  beforeEach(async () => {
    notifyFails = false;
    h = await harness();
    h.services
      .define('orders', 'approval.Checks.validate', (input) => ({ valid: input.orderId > 0, checked: input }))
      .define('orders', 'approval.Notify.rejected', () => {
        if (notifyFails) throw Object.assign(new Error('mail server down'), { name: 'MailError' });
        return { notified: true };
      });
    await h.services.deploy('orders', flux('approval/OrderApproval', ORDER));
  });

  afterEach(async () => {
    await h.engine.stop();
  });

  it('runs the action with its inputs, merges the output and waits on the immediate transition taken', async () => {
    const ref = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
      input: { orderId: 7 },
      tags: ['o7'],
    });
    expect(ref.state).to.equal('await');
    const call = h.services.calls[0]!;
    expect(call.service).to.equal('orders/approval.Checks.validate');
    expect(call.input).to.deep.equal({ orderId: 7, meta: { source: 'manual' } });
    expect(call.options?.package).to.equal('orders');
    const ctx = (await h.engine.getContext(ref.contextId))!;
    expect(ctx).to.include({
      fluxName: 'approval.OrderApproval',
      id: ref.contextId,
      currentState: 'await',
      startState: 'validate',
      status: 'WAITING',
      waiting: true,
      debugged: false,
      nextRun: 0,
      packageName: 'orders',
    });
    expect(ctx.vars).to.include({ orderId: 7, valid: true });
    expect(ctx.tags).to.deep.equal(['o7']);
    expect(ctx.executionHistory).to.deep.equal([
      { fluxName: 'approval.OrderApproval', stateName: 'validate', stateIndex: 0 },
      { fluxName: 'approval.OrderApproval', stateName: 'await', stateIndex: 1 },
    ]);
    expect(ctx.input).to.deep.equal({
      name: 'approval.OrderApproval.input',
      type: 'model',
      allowExtraProperties: true,
      modelProperties: [{ name: 'orderId', type: 'number', value: 7 }],
    });
    const validate = await h.engine.getStateContext(ref.contextId, 'validate');
    expect(validate.name).to.equal('validate');
    expect(validate.output.modelProperties.map((p: any) => p.name)).to.deep.equal(['valid', 'checked']);
    expect(validate.transitionContexts[0]).to.include({ kind: 'immediate', to: 'await' });
    expect(h.seen['flux.context.started']).to.deep.equal([
      {
        contextId: ref.contextId,
        fluxName: 'approval.OrderApproval',
        packageName: 'orders',
        state: 'validate',
      },
    ]);
  });

  it('takes the first immediate transition whose condition holds, in definition order', async () => {
    const ref = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
      input: { orderId: 0 },
    });
    expect(ref.state).to.equal('rejected');
    const ctx = (await h.engine.getContext(ref.contextId))!;
    // `rejected` has only a $exception transition: when its action succeeds the context ends.
    expect(ctx.status).to.equal('DONE');
    expect(ctx.vars.notified).to.equal(true);
    expect(ctx.output.modelProperties.find((p: any) => p.name === 'notified')).to.deep.include({
      value: true,
    });
    expect(h.seen['flux.context.ended']).to.deep.equal([
      { contextId: ref.contextId, fluxName: 'approval.OrderApproval', status: 'DONE' },
    ]);
  });

  it('moves on an event whose condition holds, merges the event input into vars', async () => {
    const { contextId } = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
      input: { orderId: 1 },
    });
    const small = await h.engine.sendEvent({ event: 'approve', contextId, input: { amount: 10 } });
    expect(small).to.deep.equal({ transitions: [{ contextId, state: 'approved' }], executions: [] });
    const ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.status).to.equal('DONE');
    expect(ctx.vars.amount).to.equal(10);
  });

  it('tries the next transition of the same event when a condition fails', async () => {
    const { contextId } = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
      input: { orderId: 1 },
    });
    const big = await h.engine.sendEvent({ event: 'approve', contextId, input: { amount: 5000 } });
    expect(big.transitions).to.deep.equal([{ contextId, state: 'review' }]);
  });

  it('routes an undeclared event to $else, and reports one not delivered without $else', async () => {
    const { contextId } = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
      input: { orderId: 1 },
    });
    const other = await h.engine.sendEvent({ event: 'ping', contextId, input: { pinged: 1 } });
    expect(other.transitions).to.deep.equal([{ contextId, state: 'await' }]);
    expect((await h.engine.getContext(contextId))!.vars.pinged).to.equal(1);
    await h.engine.sendEvent({ event: 'approve', contextId, input: { amount: 5000 } });
    const lost = await h.engine.sendEvent({ event: 'ping', contextId, input: { lost: true } });
    expect(lost).to.deep.equal({ transitions: [], executions: [], notDelivered: true });
    const ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.currentState).to.equal('review');
    expect(ctx.vars.lost).to.equal(undefined);
  });

  it('takes $exception with vars.$fluxException when the action throws', async () => {
    notifyFails = true;
    const { contextId, state } = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
      input: { orderId: 0 },
    });
    expect(state).to.equal('failedNotice');
    const ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.status).to.equal('DONE');
    expect(ctx.vars.$fluxException).to.deep.equal({
      message: 'mail server down',
      type: 'MailError',
      fluxStackTrace: [{ fluxName: 'approval.OrderApproval', stateName: 'rejected', stateIndex: 4 }],
    });
  });

  it('ends FAILED with the error kept when an action throws without $exception', async () => {
    h.services.define('orders', 'approval.Checks.validate', () => {
      throw new TypeError('bad order');
    });
    const { contextId } = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
    });
    const ctx = (await h.engine.getContext(contextId))!;
    expect(ctx.status).to.equal('FAILED');
    expect(ctx.error).to.deep.equal({ message: 'bad order', type: 'TypeError' });
    const e = await h.engine.sendEvent({ event: 'approve', contextId }).catch((err: unknown) => err);
    expect(e).to.include({ code: 'JCT_FLUX_CONTEXT_FINISHED', statusCode: 409 });
  });

  it('starts at a given startState and refuses unknown packages, workflows and states', async () => {
    const ref = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
      startState: 'review',
    });
    expect(ref.state).to.equal('review');
    expect((await h.engine.getContext(ref.contextId))!.startState).to.equal('review');
    const codes = await Promise.all([
      h.engine.execute({ packageName: 'nope', fluxName: 'x' }).catch((e: any) => e.code),
      h.engine.execute({ packageName: 'orders', fluxName: 'nope' }).catch((e: any) => e.code),
      h.engine
        .execute({ packageName: 'orders', fluxName: 'approval.OrderApproval', startState: 'nope' })
        .catch((e: any) => e.code),
      h.engine.getStateContext(ref.contextId, 'nope').catch((e: any) => e.code),
      h.engine.getStateContext(999, 'review').catch((e: any) => e.code),
      h.engine.terminate(999).catch((e: any) => e.code),
      h.engine.sendEvent({ event: '$exception', contextId: ref.contextId }).catch((e: any) => e.code),
    ]);
    expect(codes).to.deep.equal([
      'JCT_FLUX_PACKAGE_NOT_FOUND',
      'JCT_FLUX_WORKFLOW_NOT_FOUND',
      'JCT_FLUX_STATE_NOT_FOUND',
      'JCT_FLUX_STATE_NOT_FOUND',
      'JCT_FLUX_CONTEXT_NOT_FOUND',
      'JCT_FLUX_CONTEXT_NOT_FOUND',
      'JCT_FLUX_EVENT_INVALID',
    ]);
  });

  it('terminates a waiting context once, then answers 409', async () => {
    const { contextId } = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
      input: { orderId: 3 },
    });
    await h.engine.terminate(contextId);
    const ctx = (await h.engine.getContext(contextId))!;
    expect(ctx).to.include({ status: 'TERMINATED', waiting: false });
    const again = await h.engine.terminate(contextId).catch((e: any) => e);
    expect(again.code).to.equal('JCT_FLUX_CONTEXT_FINISHED');
    expect(h.seen['flux.context.ended']!.at(-1)).to.deep.equal({
      contextId,
      fluxName: 'approval.OrderApproval',
      status: 'TERMINATED',
    });
  });

  it('runs `none` actions and action-less states, and fails a loop of immediate transitions', async () => {
    await h.services.deploy(
      'misc',
      {
        ...flux(
          'Loop',
          `states:\n  - name: a\n    action: { type: none }\n    transitions: [{ to: b }]\n  - name: b\n    transitions: [{ to: a }]\n`,
        ),
        ...flux('sub/Plain', `states:\n  - name: only\n`),
      },
      [],
    );
    const plain = await h.engine.execute({ packageName: 'misc', fluxName: 'sub.Plain' });
    expect((await h.engine.getContext(plain.contextId))!.status).to.equal('DONE');
    const loop = await h.engine.execute({ packageName: 'misc', fluxName: 'Loop' });
    const ctx = (await h.engine.getContext(loop.contextId))!;
    expect(ctx.status).to.equal('FAILED');
    expect(ctx.error!.type).to.equal('FluxLoopError');
  });

  it('gives definitions and access rules, by name and by context', async () => {
    const def = await h.engine.getDefinition({ fluxName: 'approval.OrderApproval' });
    expect(def.comment).to.equal('Approves an order');
    expect(def.triggers).to.deep.equal([]);
    expect(def.states.map((s) => s.name)).to.deep.equal([
      'validate',
      'await',
      'review',
      'approved',
      'rejected',
      'failedNotice',
    ]);
    const ref = { packageName: 'orders', fluxName: 'approval.OrderApproval' };
    expect(h.engine.findWorkflow('approval.OrderApproval')).to.deep.equal(ref);
    expect(await h.engine.accessOf(ref)).to.equal(undefined);
    const e = await h.engine.getDefinition({ fluxName: 'nope' }).catch((err: any) => err.code);
    expect(e).to.equal('JCT_FLUX_WORKFLOW_NOT_FOUND');
    const p = await h.engine.accessOf({ packageName: 'nope', fluxName: 'x' }).catch((err: any) => err.code);
    expect(p).to.equal('JCT_FLUX_PACKAGE_NOT_FOUND');
  });

  it('emits transitions on app.events after they are written, and counts them in metrics', async () => {
    const seenAt: string[] = [];
    h.events.on('flux.context.transitioned', (p) => seenAt.push(`${p.from}->${p.to}`));
    const { contextId } = await h.engine.execute({
      packageName: 'orders',
      fluxName: 'approval.OrderApproval',
      input: { orderId: 5 },
    });
    await h.engine.sendEvent({ event: 'approve', contextId, input: { amount: 1 } });
    expect(seenAt).to.deep.equal(['validate->await', 'await->approved']);
    expect(h.seen['flux.context.transitioned']!.every((p) => p.contextId === contextId)).to.equal(true);
    const text = await h.metrics.metrics();
    expect(text).to.match(/junction_flux_contexts_started_total 1/);
    expect(text).to.match(/junction_flux_transitions_total 2/);
    expect(text).to.match(/junction_flux_contexts_ended_total\{status="DONE"\} 1/);
    const unvisited = await h.engine.getStateContext(contextId, 'review');
    expect(unvisited).to.deep.equal({
      name: 'review',
      input: { name: 'review.input', type: 'model', allowExtraProperties: true, modelProperties: [] },
      output: { name: 'review.output', type: 'model', allowExtraProperties: true, modelProperties: [] },
      transitionContexts: [],
    });
  });
});

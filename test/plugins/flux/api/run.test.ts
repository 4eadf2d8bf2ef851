import { expect } from 'chai';
import type { Junction } from '../../../../core/app.js';
import { expectError, fluxApp } from './fixture.js';

describe('plugins/flux/api: execute, terminate, event', () => {
  let app: Junction;
  beforeEach(async () => {
    ({ app } = await fluxApp());
  });
  afterEach(() => app.stop());

  const execute = (body: Record<string, unknown>, pkg = 'orders', headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `/flux-api/${pkg}/execute`, payload: body, headers });
  const event = (body: Record<string, unknown>, query = '', headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: `/flux-api/event${query}`, payload: body, headers });
  const context = async (id: number) => (await app.inject(`/flux-api/context?contextId=${id}`)).json();

  describe('POST /flux-api/{package}/execute', () => {
    it('starts a workflow and answers {message, contextId}', async () => {
      const res = await execute({ fluxName: 'approval.OrderApproval', input: { orderId: 7 }, tags: ['eu'] });
      expect(res.statusCode).to.equal(200);
      const body = res.json();
      expect(Object.keys(body).sort()).to.deep.equal(['contextId', 'message']);
      expect(body.contextId).to.be.a('number').above(0);
      expect(body.message).to.contain('approval.OrderApproval');
      const c = await context(body.contextId);
      expect(c).to.include({ fluxName: 'approval.OrderApproval', currentState: 'await', status: 'WAITING' });
      expect(c.tags).to.deep.equal(['eu']);
      expect(c.vars).to.deep.equal({ orderId: 7 });
    });

    it('passes startState, and tags given comma-separated', async () => {
      const res = await execute({
        fluxName: 'approval.OrderApproval',
        startState: 'approved',
        tags: ['a,b', ' c '],
      });
      const c = await context(res.json().contextId);
      expect(c).to.include({ startState: 'approved', status: 'DONE' });
      expect(c.tags).to.deep.equal(['a', 'b', 'c']);
    });

    it('answers 404 for an unknown package, workflow or start state', async () => {
      expectError(await execute({ fluxName: 'x.Y' }, 'nopkg'), 404, 'JCT_FLUX_PACKAGE_NOT_FOUND');
      expectError(
        await execute({ fluxName: 'approval.OrderApproval' }, 'nopkg'),
        404,
        'JCT_FLUX_PACKAGE_NOT_FOUND',
      );
      expectError(await execute({ fluxName: 'approval.Nope' }), 404, 'JCT_FLUX_WORKFLOW_NOT_FOUND');
      expectError(
        await execute({ fluxName: 'approval.OrderApproval', startState: 'nowhere' }),
        404,
        'JCT_FLUX_STATE_NOT_FOUND',
      );
    });

    it('answers 400 naming a missing or malformed field', async () => {
      expect(expectError(await execute({}), 400, 'JCT_VALIDATION').message).to.contain('"fluxName"');
      const input = expectError(await execute({ fluxName: 'a.B', input: 'text' }), 400, 'JCT_VALIDATION');
      expect(input.message).to.contain('"input"');
      const tags = expectError(await execute({ fluxName: 'a.B', tags: [{ x: 1 }] }), 400, 'JCT_VALIDATION');
      expect(tags.message).to.contain('tags');
    });

    it('answers a retry with the same Idempotency-Key with the first result', async () => {
      const key = { 'idempotency-key': 'order-7-start' };
      const first = await execute({ fluxName: 'approval.OrderApproval' }, 'orders', key);
      const second = await execute({ fluxName: 'approval.OrderApproval' }, 'orders', key);
      expect(second.json()).to.deep.equal(first.json());
      const all = await app.inject('/flux-api/contexts');
      expect(all.json()).to.have.length(1);
      const other = await execute({ fluxName: 'approval.OrderApproval' }, 'orders', {
        'idempotency-key': 'k2',
      });
      expect(other.json().contextId).not.to.equal(first.json().contextId);
    });
  });

  describe('DELETE /flux-api/terminate', () => {
    it('terminates a running context, then answers 409', async () => {
      const id = (await execute({ fluxName: 'approval.OrderApproval' })).json().contextId;
      const res = await app.inject({ method: 'DELETE', url: `/flux-api/terminate?contextId=${id}` });
      expect(res.statusCode).to.equal(200);
      expect(Object.keys(res.json())).to.deep.equal(['message']);
      expect((await context(id)).status).to.equal('TERMINATED');
      const again = await app.inject({ method: 'DELETE', url: `/flux-api/terminate?contextId=${id}` });
      expectError(again, 409, 'JCT_FLUX_CONTEXT_FINISHED');
    });

    it('answers 400 for a missing or malformed contextId and 404 for an unknown one', async () => {
      for (const q of [
        '',
        '?contextId=abc',
        '?contextId=0',
        '?contextId=-3',
        '?contextId=1.5',
        '?contextId=1&contextId=2',
      ]) {
        const res = await app.inject({ method: 'DELETE', url: `/flux-api/terminate${q}` });
        expect(expectError(res, 400, 'JCT_VALIDATION').message, q).to.contain('contextId');
      }
      const res = await app.inject({ method: 'DELETE', url: '/flux-api/terminate?contextId=999' });
      expectError(res, 404, 'JCT_FLUX_CONTEXT_NOT_FOUND');
    });
  });

  describe('POST /flux-api/event', () => {
    it('moves one context by contextId and reports it in transitions', async () => {
      const id = (await execute({ fluxName: 'approval.OrderApproval' })).json().contextId;
      const res = await event({ event: 'approve', input: { by: 'ann' } }, `?contextId=${id}`);
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.deep.include({
        transitions: [{ contextId: id, state: 'approved' }],
        executions: [],
      });
      expect(res.json().message).to.be.a('string');
      const c = await context(id);
      expect(c).to.include({ currentState: 'approved', status: 'DONE' });
      expect(c.vars).to.deep.equal({ by: 'ann' });
      expectError(await event({ event: 'approve' }, `?contextId=${id}`), 409, 'JCT_FLUX_CONTEXT_FINISHED');
    });

    it('says so when the context has no transition for the event', async () => {
      const id = (await execute({ fluxName: 'approval.OrderApproval' })).json().contextId;
      const res = await event({ event: 'unknown' }, `?contextId=${id}`);
      expect(res.statusCode).to.equal(200);
      expect(res.json().transitions).to.deep.equal([]);
      expect(res.json().message).to.contain('not delivered');
    });

    it('reaches the contexts carrying all given tags, and starts triggered workflows', async () => {
      const a = (await execute({ fluxName: 'approval.OrderApproval', tags: ['eu', 'big'] })).json().contextId;
      const b = (await execute({ fluxName: 'approval.OrderApproval', tags: ['eu'] })).json().contextId;
      const res = await event({ event: 'approve', tags: ['eu,big'] });
      expect(res.json().transitions).to.deep.equal([{ contextId: a, state: 'approved' }]);
      expect((await context(b)).currentState).to.equal('await');
      const created = await event({ event: 'order.created', input: { orderId: 9 } });
      expect(created.json().transitions).to.deep.equal([]);
      expect(created.json().executions).to.have.length(1);
      expect(created.json().executions[0].state).to.equal('await');
    });

    it('answers 400 without an event name or with a malformed contextId, 404 for an unknown context', async () => {
      expect(expectError(await event({}), 400, 'JCT_VALIDATION').message).to.contain('"event"');
      expectError(await event({ event: 'x' }, '?contextId=x'), 400, 'JCT_VALIDATION');
      expectError(await event({ event: 'x' }, '?contextId=42'), 404, 'JCT_FLUX_CONTEXT_NOT_FOUND');
      expectError(await event({ event: '$else' }), 400, 'JCT_FLUX_EVENT_INVALID');
    });

    it('answers a retry with the same Idempotency-Key with the first result', async () => {
      const id = (await execute({ fluxName: 'approval.OrderApproval' })).json().contextId;
      const key = { 'idempotency-key': 'approve-1' };
      const first = await event({ event: 'approve' }, `?contextId=${id}`, key);
      const retry = await event({ event: 'approve' }, `?contextId=${id}`, key);
      expect(retry.statusCode).to.equal(200);
      expect(retry.json()).to.deep.equal(first.json());
      // Acting twice would have answered 409: the context ended with the first delivery.
      const fresh = await event({ event: 'approve' }, `?contextId=${id}`, { 'idempotency-key': 'approve-2' });
      expectError(fresh, 409, 'JCT_FLUX_CONTEXT_FINISHED');
    });
  });
});

import { expect } from 'chai';
import type { Junction } from '../../../../core/app.js';
import { expectError, fluxApp } from './fixture.js';

describe('plugins/flux/api: contexts, context, state, tags, definition', () => {
  let app: Junction;
  beforeEach(async () => {
    ({ app } = await fluxApp());
  });
  afterEach(() => app.stop());

  const start = async (fluxName: string, extra: Record<string, unknown> = {}) =>
    (
      await app.inject({ method: 'POST', url: '/flux-api/orders/execute', payload: { fluxName, ...extra } })
    ).json().contextId as number;
  const list = async (query: string) => {
    const res = await app.inject(`/flux-api/contexts${query}`);
    expect(res.statusCode, res.body).to.equal(200);
    return (res.json() as { id: number }[]).map((c) => c.id);
  };

  describe('GET /flux-api/contexts', () => {
    it('lists newest first, 30 by default, paged by limit and page', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 35; i++) ids.push(await start('approval.OrderApproval'));
      const newest = [...ids].reverse();
      expect(await list('')).to.deep.equal(newest.slice(0, 30));
      expect(await list('?limit=10&page=1')).to.deep.equal(newest.slice(10, 20));
      expect(await list('?limit=30&page=1')).to.deep.equal(newest.slice(30));
      expect(await list('?limit=1000')).to.have.length(35);
    });

    it('filters by fluxName, status, currentState, startState', async () => {
      const a = await start('approval.OrderApproval');
      const b = await start('approval.OrderApproval', { startState: 'approved' });
      const r = await start('approval.Reminder');
      expect(await list('?fluxName=approval.Reminder')).to.deep.equal([r]);
      expect(await list('?status=DONE')).to.deep.equal([b]);
      expect(await list('?status=WAITING_UNTIL')).to.deep.equal([r]);
      expect(await list('?currentState=await')).to.deep.equal([a]);
      expect(await list('?startState=approved&fluxName=approval.OrderApproval')).to.deep.equal([b]);
    });

    it('filters by tags, repeated and comma-separated, all of them', async () => {
      const both = await start('approval.OrderApproval', { tags: ['eu', 'big'] });
      const eu = await start('approval.OrderApproval', { tags: ['eu'] });
      expect(await list('?tag=eu')).to.deep.equal([eu, both]);
      expect(await list('?tag=eu&tag=big')).to.deep.equal([both]);
      expect(await list('?tag=eu,big')).to.deep.equal([both]);
      expect(await list('?tag=big,eu&tag=eu')).to.deep.equal([both]);
      expect(await list('?tag=none')).to.deep.equal([]);
    });

    it('answers 400 for a bad limit, page or status', async () => {
      for (const q of ['limit=0', 'limit=1001', 'limit=x', 'page=-1', 'page=x', 'status=SLEEPING']) {
        const res = await app.inject(`/flux-api/contexts?${q}`);
        expect(expectError(res, 400, 'JCT_VALIDATION').message, q).to.contain(q.split('=')[0]);
      }
    });
  });

  describe('GET /flux-api/context and /context/state', () => {
    it('answers the context with every field of the contract', async () => {
      const id = await start('approval.OrderApproval', { input: { n: 1 }, tags: ['t'] });
      const res = await app.inject(`/flux-api/context?contextId=${id}`);
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.include.all.keys(
        'fluxName',
        'id',
        'currentState',
        'startState',
        'waiting',
        'debugged',
        'nextRun',
        'status',
        'input',
        'output',
        'tags',
        'stateContexts',
        'executionHistory',
      );
      expect(res.json().input).to.deep.equal({
        name: 'approval.OrderApproval.input',
        type: 'model',
        allowExtraProperties: true,
        modelProperties: [{ name: 'n', type: 'number', value: 1 }],
      });
      expect(res.json().executionHistory).to.deep.equal([
        { fluxName: 'approval.OrderApproval', stateName: 'await', stateIndex: 0 },
      ]);
    });

    it('shows why a FAILED context failed', async () => {
      await app.stop();
      ({ app } = await fluxApp({
        packages: {
          stock: {
            'code/Checks.js': "export async function reserve() { throw new Error('out of stock'); }\n",
            'flux/Reserve.flux.yaml': [
              'states:',
              '  - name: reserve',
              '    action: { type: invokeCode, className: Checks, methodName: reserve }',
              '    transitions:',
              '      - { to: done }',
              '  - name: done',
              '',
            ].join('\n'),
          },
        },
      }));
      const started = await app.inject({
        method: 'POST',
        url: '/flux-api/stock/execute',
        payload: { fluxName: 'Reserve' },
      });
      expect(started.statusCode, started.body).to.equal(200);
      const res = await app.inject(`/flux-api/context?contextId=${started.json().contextId}`);
      expect(res.json()).to.include({ status: 'FAILED', currentState: 'reserve', waiting: false });
      expect(res.json().error.message).to.contain('out of stock');
      const listed = await app.inject('/flux-api/contexts?status=FAILED');
      expect(listed.json()[0].error.message).to.contain('out of stock');
    });

    it('answers a state context, 404 for an unknown state or context, 400 without stateName', async () => {
      const id = await start('approval.OrderApproval');
      const res = await app.inject(`/flux-api/context/state?contextId=${id}&stateName=await`);
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.have.all.keys('name', 'input', 'output', 'transitionContexts');
      expect(res.json().name).to.equal('await');
      expectError(
        await app.inject(`/flux-api/context/state?contextId=${id}&stateName=x`),
        404,
        'JCT_FLUX_STATE_NOT_FOUND',
      );
      expectError(
        await app.inject(`/flux-api/context/state?contextId=99&stateName=await`),
        404,
        'JCT_FLUX_CONTEXT_NOT_FOUND',
      );
      const missing = expectError(
        await app.inject(`/flux-api/context/state?contextId=${id}`),
        400,
        'JCT_VALIDATION',
      );
      expect(missing.message).to.contain('stateName');
      expectError(await app.inject('/flux-api/context?contextId=99'), 404, 'JCT_FLUX_CONTEXT_NOT_FOUND');
      expectError(await app.inject('/flux-api/context'), 400, 'JCT_VALIDATION');
    });

    it('answers XML when Accept prefers it, errors too', async () => {
      const id = await start('approval.OrderApproval', { tags: ['x', 'y'] });
      const res = await app.inject({
        url: `/flux-api/context?contextId=${id}`,
        headers: { accept: 'application/xml' },
      });
      expect(res.statusCode).to.equal(200);
      expect(res.headers['content-type']).to.match(/^application\/xml/);
      expect(res.body).to.contain(`<id>${id}</id>`);
      expect(res.body).to.contain('<tags><item>x</item><item>y</item></tags>');
      const err = await app.inject({
        url: '/flux-api/context?contextId=77',
        headers: { accept: 'application/xml' },
      });
      expect(err.statusCode).to.equal(404);
      expect(err.body).to.contain('<code>JCT_FLUX_CONTEXT_NOT_FOUND</code>');
      const ev = await app.inject({
        method: 'POST',
        url: `/flux-api/event?contextId=${id}`,
        payload: { event: 'approve' },
        headers: { accept: 'application/xml' },
      });
      expect(ev.body).to.contain(
        `<transitions><item><contextId>${id}</contextId><state>approved</state></item></transitions>`,
      );
    });
  });

  describe('/flux-api/context/tag', () => {
    it('adds tags with POST and PUT (repeated and comma-separated) and removes them with DELETE', async () => {
      const id = await start('approval.OrderApproval', { tags: ['a'] });
      const tags = async () => (await app.inject(`/flux-api/context?contextId=${id}`)).json().tags;
      const post = await app.inject({
        method: 'POST',
        url: `/flux-api/context/tag?contextId=${id}&tag=b,c&tag=d`,
      });
      expect(post.statusCode).to.equal(200);
      expect(Object.keys(post.json())).to.deep.equal(['message']);
      expect(await tags()).to.deep.equal(['a', 'b', 'c', 'd']);
      await app.inject({ method: 'PUT', url: `/flux-api/context/tag?contextId=${id}&tag=e` });
      expect(await tags()).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
      const del = await app.inject({
        method: 'DELETE',
        url: `/flux-api/context/tag?contextId=${id}&tag=a,c&tag=e`,
      });
      expect(del.statusCode).to.equal(200);
      expect(await tags()).to.deep.equal(['b', 'd']);
    });

    it('answers 400 without a tag or contextId, 404 for an unknown context', async () => {
      const id = await start('approval.OrderApproval');
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        for (const q of [`contextId=${id}`, `contextId=${id}&tag=,`, 'tag=a', 'contextId=abc&tag=a']) {
          const res = await app.inject({ method, url: `/flux-api/context/tag?${q}` });
          expectError(res, 400, 'JCT_VALIDATION');
        }
        expectError(
          await app.inject({ method, url: '/flux-api/context/tag?contextId=500&tag=a' }),
          404,
          'JCT_FLUX_CONTEXT_NOT_FOUND',
        );
      }
    });
  });

  describe('GET /flux-api/definition', () => {
    it('answers by fluxName and by contextId, contextId taking precedence', async () => {
      const byName = await app.inject('/flux-api/definition?fluxName=approval.OrderApproval');
      expect(byName.statusCode).to.equal(200);
      expect(byName.json()).to.deep.include({ comment: 'Approves an order', triggers: ['order.created'] });
      expect(byName.json().states.map((s: { name: string }) => s.name)).to.deep.equal([
        'await',
        'approved',
        'rejected',
      ]);
      const id = await start('approval.Reminder');
      const both = await app.inject(`/flux-api/definition?fluxName=approval.OrderApproval&contextId=${id}`);
      expect(both.json().states[0].name).to.equal('remind');
      expect((await app.inject(`/flux-api/definition?contextId=${id}`)).json()).to.deep.equal(both.json());
    });

    it('answers 400 without either parameter and 404 for unknown ones', async () => {
      const none = expectError(await app.inject('/flux-api/definition'), 400, 'JCT_VALIDATION');
      expect(none.message).to.contain('fluxName').and.contain('contextId');
      expectError(await app.inject('/flux-api/definition?fluxName=x.Y'), 404, 'JCT_FLUX_WORKFLOW_NOT_FOUND');
      expectError(await app.inject('/flux-api/definition?contextId=31'), 404, 'JCT_FLUX_CONTEXT_NOT_FOUND');
      expectError(await app.inject('/flux-api/definition?contextId=0'), 400, 'JCT_VALIDATION');
    });
  });

  it('describes every route in /openapi.json', async () => {
    const doc = (await app.inject('/openapi.json')).json();
    const paths = doc.paths as Record<string, Record<string, { parameters?: { name: string }[] }>>;
    expect(paths['/flux-api/{package}/execute']).to.have.property('post');
    expect(paths['/flux-api/terminate']).to.have.property('delete');
    expect(paths['/flux-api/event']).to.have.property('post');
    expect((paths['/flux-api/event']!.post as { security?: unknown }).security).to.deep.equal([
      {},
      { bearer: [] },
    ]);
    expect(paths['/flux-api/contexts']!.get!.parameters!.map((p) => p.name)).to.include.members([
      'fluxName',
      'tag',
      'status',
      'currentState',
      'startState',
      'limit',
      'page',
    ]);
    expect(paths['/flux-api/context']).to.have.property('get');
    expect(paths['/flux-api/context/state']).to.have.property('get');
    expect(paths['/flux-api/context/tag']).to.have.keys('post', 'put', 'delete');
    expect(paths['/flux-api/definition']).to.have.property('get');
  });
});

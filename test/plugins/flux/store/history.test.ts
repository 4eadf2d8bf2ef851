import { expect } from 'chai';
import { HISTORY_CHUNK } from '../../../../plugins/flux/store/history.js';
import { HISTORY_KEPT } from '../../../../plugins/flux/store/record.js';
import { flux, harness, PING_PONG, type Harness } from '../engine/harness.js';

describe('flux store: long-lived contexts (sealed history chunks, no sandbox for plain transitions)', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
    await h.services.deploy('app', { ...flux('PingPong', PING_PONG) }, []);
  });
  afterEach(async () => {
    await h.engine.stop();
  });

  const run = async (events: number) => {
    const { contextId } = await h.engine.execute({ packageName: 'app', fluxName: 'PingPong' });
    for (let i = 0; i < events; i++) await h.engine.sendEvent({ event: 'next', contextId });
    return contextId;
  };
  const expected = (steps: number) =>
    Array.from({ length: steps }, (_, i) => (i % 2 === 0 ? 'ping' : 'pong'));

  it('keeps the record small and shows every step, in order, in the context and the listing', async () => {
    const id = await run(2 * HISTORY_CHUNK + 7);
    const stored = (await h.engine.contexts.load(id))!.record;
    expect(stored.executionHistory.length).to.be.below(HISTORY_CHUNK);
    expect(stored.historySealed).to.equal(2 * HISTORY_CHUNK);
    const ctx = (await h.engine.getContext(id))!;
    expect(ctx.executionHistory.map((e) => e.stateName)).to.deep.equal(expected(2 * HISTORY_CHUNK + 8));
    expect(ctx.executionHistory[1]).to.deep.equal({ fluxName: 'PingPong', stateName: 'pong', stateIndex: 1 });
    const [listed] = await h.engine.listContexts({ limit: 1, page: 0 });
    expect(listed!.executionHistory).to.deep.equal(ctx.executionHistory);
  });

  it('takes transitions without action or condition without a single sandbox call', async () => {
    const before = h.services.evaluations;
    const id = await run(10);
    expect((await h.engine.getContext(id))!.currentState).to.equal('ping');
    expect(h.services.evaluations).to.equal(before);
  });

  it('keeps the last HISTORY_KEPT steps and deletes older chunks', async () => {
    const steps = HISTORY_KEPT + 3 * HISTORY_CHUNK + 11;
    const id = await run(steps - 1);
    const ctx = (await h.engine.getContext(id))!;
    expect(ctx.executionHistory).to.have.length(HISTORY_KEPT);
    expect(ctx.executionHistory.map((e) => e.stateName)).to.deep.equal(expected(steps).slice(-HISTORY_KEPT));
    let chunks = 0;
    for await (const key of h.engine.contexts.history.keys()) {
      expect(key.startsWith(`${String(id).padStart(16, '0')}/`)).to.equal(true);
      chunks++;
    }
    expect(chunks).to.equal(HISTORY_KEPT / HISTORY_CHUNK);
  });
});

import { expect } from 'chai';
import { FakeServices, flux, harness, type Harness } from '../engine/harness.js';

const FLOW = `
states:
  - name: a
    transitions:
      - { event: next, to: b }
  - name: b
    transitions:
      - { event: next, to: c }
  - name: c
`;

describe('flux store: listing contexts through the indexes', () => {
  let h: Harness;
  let ids: number[];

  before(async () => {
    h = await harness({
      services: new FakeServices(),
      packages: { p: { ...flux('One', FLOW), ...flux('x/Two', FLOW) } },
    });
    ids = [];
    for (let i = 0; i < 30; i++) {
      const tags = [i % 2 === 0 ? 'even' : 'odd', ...(i % 3 === 0 ? ['three'] : [])];
      const { contextId } = await h.engine.execute({
        packageName: 'p',
        fluxName: i < 20 ? 'One' : 'x.Two',
        tags,
        ...(i % 5 === 0 ? { startState: 'b' } : {}),
      });
      ids.push(contextId);
      if (i % 4 === 0) await h.engine.sendEvent({ event: 'next', contextId });
    }
  });

  after(async () => {
    await h.engine.stop();
  });

  const list = (f: Record<string, unknown>) =>
    h.engine.listContexts({ limit: 30, page: 0, ...f }).then((cs) => cs.map((c) => c.id));
  const expected = (pred: (i: number) => boolean) => ids.filter((_, i) => pred(i)).reverse();

  it('lists newest first, with limit and page', async () => {
    expect(await list({})).to.deep.equal([...ids].reverse());
    expect(await list({ limit: 7, page: 0 })).to.deep.equal([...ids].reverse().slice(0, 7));
    expect(await list({ limit: 7, page: 4 })).to.deep.equal([...ids].reverse().slice(28));
    expect(await list({ limit: 7, page: 5 })).to.deep.equal([]);
  });

  it('filters by fluxName, tags (all of them), status, currentState and startState, combined', async () => {
    expect(await list({ fluxName: 'x.Two' })).to.deep.equal(expected((i) => i >= 20));
    expect(await list({ tags: ['even', 'three'] })).to.deep.equal(expected((i) => i % 6 === 0));
    const state = (i: number) => (i % 5 === 0 ? (i % 4 === 0 ? 'c' : 'b') : i % 4 === 0 ? 'b' : 'a');
    expect(await list({ currentState: 'b' })).to.deep.equal(expected((i) => state(i) === 'b'));
    expect(await list({ status: 'DONE' })).to.deep.equal(expected((i) => state(i) === 'c'));
    expect(await list({ startState: 'b', fluxName: 'One', tags: ['odd'] })).to.deep.equal(
      expected((i) => i % 5 === 0 && i < 20 && i % 2 === 1),
    );
    expect(
      await list({ status: 'WAITING', currentState: 'a', tags: ['three'], limit: 2, page: 1 }),
    ).to.deep.equal(expected((i) => state(i) === 'a' && i % 3 === 0).slice(2, 4));
    expect(await list({ tags: ['nope'] })).to.deep.equal([]);
  });
});

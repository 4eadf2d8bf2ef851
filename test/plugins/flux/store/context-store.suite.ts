/**
 * The context store's contract, run against every storage it must work on (memory-level in tests,
 * LevelDB on disk in production): records with their index keys in one batch, index scans in
 * both directions, deadline ranges, intersections, the id counter across a reopen.
 */
import { expect } from 'chai';
import type { LevelStorage } from '../../../../core/storage/level-storage.js';
import { ContextStore, idKey } from '../../../../plugins/flux/store/context-store.js';
import {
  IntersectionStream,
  iterate,
  UnionStream,
  type IdStream,
} from '../../../../plugins/flux/store/id-stream.js';
import { listContexts } from '../../../../plugins/flux/store/listing.js';
import type { ContextRecord } from '../../../../plugins/flux/store/record.js';
import { ANONYMOUS } from '../../../../core/services/types.js';

export interface StoreFactory {
  /** A fresh, open storage. */
  open(): Promise<LevelStorage>;
  /** The same data as a restarted process sees it. */
  reopen(storage: LevelStorage): Promise<LevelStorage>;
}

function record(id: number, over: Partial<ContextRecord> = {}): ContextRecord {
  return {
    id,
    packageName: 'p',
    fluxName: 'F',
    definitionVersion: 'v',
    startState: 'a',
    currentState: 'a',
    status: 'WAITING',
    nextRun: 0,
    nextTransition: -1,
    awaiting: ['go'],
    tags: [],
    input: {},
    vars: {},
    event: null,
    user: ANONYMOUS,
    stateContexts: [],
    executionHistory: [],
    createdAt: 0,
    updatedAt: 0,
    ...over,
  };
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of it) out.push(v);
  return out;
}

export function contextStoreSuite(name: string, factory: StoreFactory): void {
  describe(`flux context store on ${name}`, () => {
    let storage: LevelStorage;
    let store: ContextStore;

    beforeEach(async () => {
      storage = await factory.open();
      store = new ContextStore(storage.store('flux'));
      await store.open();
    });

    afterEach(async () => {
      await storage.close();
    });

    it('writes a record and exactly its index keys, and replaces them on change', async () => {
      const id = store.allocateId();
      let loaded = await store.save(record(id, { tags: ['t/1', 'ü'] }), undefined);
      const keys = await collect(store.index.keys());
      expect(keys.sort()).to.deep.equal(
        [
          `await/go/${idKey(id)}`,
          `flux/F/${idKey(id)}`,
          `start/a/${idKey(id)}`,
          `state/a/${idKey(id)}`,
          `status/WAITING/${idKey(id)}`,
          `tag/${encodeURIComponent('t/1')}/${idKey(id)}`,
          `tag/${encodeURIComponent('ü')}/${idKey(id)}`,
        ].sort(),
      );
      const changed = {
        ...loaded.record,
        status: 'WAITING_UNTIL' as const,
        nextRun: 5000,
        currentState: 'b',
        tags: ['ü'],
      };
      loaded = await store.save(changed, loaded);
      expect((await store.load(id))!.record.currentState).to.equal('b');
      expect(await collect(store.ids('tag', 't/1'))).to.deep.equal([]);
      expect(await collect(store.ids('state', 'a'))).to.deep.equal([]);
      expect(await collect(store.deadlines(-1, 10_000))).to.deep.equal([[5000, id]]);
      await store.save({ ...changed, status: 'DONE', nextRun: 0, awaiting: [] }, loaded);
      expect(await collect(store.deadlines(-1, 10_000))).to.deep.equal([]);
      expect(await collect(store.ids('await', 'go'))).to.deep.equal([]);
      expect(await collect(store.ids('status', 'DONE'))).to.deep.equal([id]);
    });

    it('writes only the index keys that change, and hands out the last saved record to work on', async () => {
      const id = store.allocateId();
      const first = await store.save(record(id), undefined);
      const ops = store.ops({ ...first.record, currentState: 'b' }, first).ops;
      // The record, and the current state's key moved: nothing else is rewritten.
      expect(ops.map((op) => `${op.type} ${op.key}`)).to.deep.equal([
        `put ${idKey(id)}`,
        `del state/a/${idKey(id)}`,
        `put state/b/${idKey(id)}`,
      ]);
      // Saved: the next work gets that very record without a read; checked out, it is no longer cached.
      const out = await store.checkOut(id);
      expect(out!.record).to.equal(first.record);
      const again = await store.checkOut(id);
      expect(again!.record).to.not.equal(first.record);
      expect(again!.record).to.deep.equal(first.record);
      // A record changed and forgotten (its work failed) is read back as stored.
      again!.record.currentState = 'changed but not saved';
      store.forget(id);
      expect((await store.checkOut(id))!.record.currentState).to.equal('a');
    });

    it('keeps at most its cache size of records', async () => {
      const small = new ContextStore(storage.store('flux2'), 2);
      await small.open();
      const saved = [];
      for (let i = 0; i < 3; i++) saved.push(await small.save(record(small.allocateId()), undefined));
      expect((await small.checkOut(saved[0]!.record.id))!.record).to.not.equal(saved[0]!.record);
      expect((await small.checkOut(saved[2]!.record.id))!.record).to.equal(saved[2]!.record);
    });

    it('scans an index newest first or oldest first, and deadlines by time range', async () => {
      for (let i = 0; i < 12; i++) {
        const id = store.allocateId();
        await store.save(record(id, { status: 'WAITING_UNTIL', nextRun: 1000 * (12 - i) }), undefined);
      }
      expect(await collect(store.ids('flux', 'F'))).to.deep.equal([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
      expect((await collect(store.ids('flux', 'F', true))).slice(0, 3)).to.deep.equal([1, 2, 3]);
      expect(await collect(store.deadlines(3000, 5000))).to.deep.equal([
        [4000, 9],
        [5000, 8],
      ]);
      expect((await collect(store.deadlines(-1, 2000))).map((d) => d[1])).to.deep.equal([12, 11]);
    });

    it('intersects and unites descending id streams, seeking over long gaps', async () => {
      const from = (ids: number[]): IdStream => {
        let i = 0;
        return {
          next: async () => ids[i++],
          seek: async (max) => {
            while (i < ids.length && ids[i]! > max) i++;
            return ids[i++];
          },
          close: async () => undefined,
        };
      };
      const both = (a: IdStream[]) => collect(iterate(new IntersectionStream(a)));
      expect(await both([from([9, 7, 5, 3, 1]), from([8, 7, 6, 3]), from([7, 3, 2])])).to.deep.equal([7, 3]);
      expect(await both([from([5, 4]), from([])])).to.deep.equal([]);
      expect(await collect(iterate(new UnionStream([from([9, 5, 2]), from([7, 5, 1])])))).to.deep.equal([
        9, 7, 5, 2, 1,
      ]);
      expect(await both([from([10, 8, 6, 4]), new UnionStream([from([9, 8]), from([6, 5])])])).to.deep.equal([
        8, 6,
      ]);
      // On the real index: 300 contexts tagged `many`, three of them also `few`.
      for (let i = 1; i <= 300; i++) {
        const id = store.allocateId();
        await store.save(
          record(id, { tags: [1, 150, 299].includes(i) ? ['many', 'few'] : ['many'] }),
          undefined,
        );
      }
      expect(await both([store.stream('tag', 'many'), store.stream('tag', 'few')])).to.deep.equal([
        299, 150, 1,
      ]);
      const s = store.stream('tag', 'many');
      expect(await s.next()).to.equal(300);
      expect(await s.seek(42)).to.equal(42);
      expect(await s.next()).to.equal(41);
      await s.close();
    });

    it('lists with filters and pages through the indexes', async () => {
      for (let i = 1; i <= 9; i++) {
        await store.save(
          record(store.allocateId(), {
            tags: i % 3 === 0 ? ['x', 'y'] : ['x'],
            status: i % 2 ? 'WAITING' : 'DONE',
          }),
          undefined,
        );
      }
      const ids = async (f: object) =>
        (await listContexts(store, { limit: 100, page: 0, ...f })).map((r) => r.id);
      expect(await ids({ tags: ['y', 'x'] })).to.deep.equal([9, 6, 3]);
      expect(await ids({ tags: ['x'], status: 'DONE' })).to.deep.equal([8, 6, 4, 2]);
      expect(await ids({ tags: ['x'], status: 'DONE', limit: 3, page: 1 })).to.deep.equal([2]);
    });

    it('keeps counting ids after a reopen', async () => {
      for (let i = 0; i < 3; i++) await store.save(record(store.allocateId()), undefined);
      storage = await factory.reopen(storage);
      store = new ContextStore(storage.store('flux'));
      await store.open();
      expect(store.allocateId()).to.equal(4);
    });
  });
}

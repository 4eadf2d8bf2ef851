import { expect } from 'chai';
import type { Storage } from '../../../core/storage/types.js';

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/**
 * The storage compliance suite: every Storage implementation passes it. `factory` returns a new,
 * unopened storage; `reopen`, when given, returns a new storage on the same data.
 */
export function storageSuite(
  name: string,
  factory: () => Storage,
  reopen?: (previous: Storage) => Storage,
): void {
  describe(`storage suite: ${name}`, () => {
    let storage: Storage;
    beforeEach(async () => {
      storage = factory();
      await storage.open();
    });
    afterEach(() => storage.close());

    it('puts, gets and deletes JSON values', async () => {
      const s = storage.store('t');
      await s.put('a', { n: 1, list: [1, 'two'], nested: { ok: true } });
      expect(await s.get('a')).to.deep.equal({ n: 1, list: [1, 'two'], nested: { ok: true } });
      expect(await s.get('missing')).to.equal(undefined);
      await s.del('a');
      expect(await s.get('a')).to.equal(undefined);
      expect(await s.getMany(['x', 'y'])).to.deep.equal([undefined, undefined]);
    });

    it('keeps named stores and nested stores apart', async () => {
      const a = storage.store('a');
      const b = storage.store('b');
      const nested = a.store('inner');
      await a.put('k', 'in a');
      await b.put('k', 'in b');
      await nested.put('k', 'in a/inner');
      expect(await a.get('k')).to.equal('in a');
      expect(await b.get('k')).to.equal('in b');
      expect(await nested.get('k')).to.equal('in a/inner');
      expect(nested.path).to.equal('a/inner');
      expect(await collect(a.keys())).to.deep.equal(['k']);
    });

    it('iterates ranges in order, reversed and limited', async () => {
      const s = storage.store('r');
      await s.batch(
        ['05', '01', '03', '02', '04'].map((k) => ({ type: 'put' as const, key: k, value: Number(k) })),
      );
      expect(await collect(s.keys())).to.deep.equal(['01', '02', '03', '04', '05']);
      expect(await collect(s.keys({ gt: '02', lte: '04' }))).to.deep.equal(['03', '04']);
      expect(await collect(s.keys({ reverse: true, limit: 2 }))).to.deep.equal(['05', '04']);
      expect(await collect(s.entries({ gte: '04' }))).to.deep.equal([
        ['04', 4],
        ['05', 5],
      ]);
      await s.clear({ lt: '03' });
      expect(await collect(s.keys())).to.deep.equal(['03', '04', '05']);
    });

    it('commits a batch across stores atomically', async () => {
      const a = storage.store('a');
      const b = storage.store('b');
      await a.batch([
        { type: 'put', key: 'x', value: 1 },
        { type: 'put', key: 'y', value: 2, store: b },
      ]);
      expect(await a.get('x')).to.equal(1);
      expect(await b.get('y')).to.equal(2);
      // An invalid op fails the whole batch before anything is written.
      let err: unknown;
      try {
        await a.batch([
          { type: 'put', key: 'z', value: 3 },
          { type: 'put', key: '', value: 4 },
        ]);
      } catch (e) {
        err = e;
      }
      expect((err as Error).message).to.equal('a key must be a non-empty string');
      expect(await a.get('z')).to.equal(undefined);
      await a.batch([
        { type: 'del', key: 'x' },
        { type: 'del', key: 'y', store: b },
      ]);
      expect(await a.getMany(['x'])).to.deep.equal([undefined]);
      expect(await b.get('y')).to.equal(undefined);
    });

    it('rejects undefined values', async () => {
      let err: unknown;
      try {
        await storage.store('t').put('k', undefined);
      } catch (e) {
        err = e;
      }
      expect((err as Error).message).to.equal('value of k is undefined');
    });

    it('shares batches between concurrent durable writers and keeps their order', async () => {
      const s = storage.store('g');
      const before = storage.stats();
      await Promise.all(Array.from({ length: 500 }, (_, i) => s.put(`k${String(i).padStart(3, '0')}`, i)));
      const after = storage.stats();
      expect(after.ops - before.ops).to.equal(500);
      expect(after.batches - before.batches).to.be.lessThan(50);
      expect(await collect(s.keys())).to.have.length(500);
      // Writes to one key resolve in order, and the last one wins.
      await Promise.all([s.put('same', 1), s.put('same', 2, { durable: false }), s.put('same', 3)]);
      expect(await s.get('same')).to.equal(3);
    });

    it('waits for pending writes on close and refuses writes after it', async () => {
      const s = storage.store('c');
      const pending = Array.from({ length: 100 }, (_, i) => s.put(`k${i}`, i));
      await storage.close();
      await Promise.all(pending);
      let err: unknown;
      try {
        await s.put('late', 1);
      } catch (e) {
        err = e;
      }
      expect((err as Error).message).to.equal('storage is closed');
      if (reopen) {
        storage = reopen(storage);
        await storage.open();
        expect(await storage.store('c').get('k99')).to.equal(99);
      } else {
        storage = factory();
        await storage.open();
      }
    });
  });
}

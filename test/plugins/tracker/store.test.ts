import { expect } from 'chai';
import { createMemoryStorage } from '../../../core/storage/level-storage.js';
import type { Storage } from '../../../core/storage/types.js';
import { InternalIdGenerator } from '../../../plugins/tracker/ids.js';
import { TrackerStore } from '../../../plugins/tracker/store.js';
import type { TrackerDocument } from '../../../plugins/tracker/types.js';

const T0 = Date.UTC(2026, 0, 1);
let ids = new InternalIdGenerator();

function doc(minute: number, extra: Partial<TrackerDocument> = {}): TrackerDocument {
  const at = T0 + minute * 60_000;
  return {
    internalId: ids.next(at),
    externalId: `ext-${minute}`,
    documentType: 'URL Alias',
    senderId: '127.0.0.1',
    receiverId: '/orders/{id}',
    userName: 'Anonymous',
    timeReceived: new Date(at).toISOString(),
    state: 'OK',
    durationMs: 1.5,
    ...extra,
  };
}

const minutes = (docs: TrackerDocument[]) => docs.map((d) => d.externalId);

describe('plugins/tracker store', () => {
  let storage: Storage;
  let store: TrackerStore;
  beforeEach(async () => {
    storage = createMemoryStorage();
    await storage.open();
    store = new TrackerStore(storage.store('tracker'));
    // Ids never go backwards: a fresh generator for every test's minute 0.
    ids = new InternalIdGenerator();
    // One batch (page) per document, as the recorder writes them a minute apart.
    for (const d of [
      doc(0),
      doc(1, { documentType: 'OrderLookup', userName: 'alice' }),
      doc(2, { userName: 'alice' }),
      doc(3, { documentType: 'OrderLookup' }),
      doc(4, { documentType: 'OrderLookup', userName: 'alice', state: 'ERROR' }),
      doc(5),
    ]) {
      await store.write([d]);
    }
  });
  afterEach(() => storage.close());

  it('makes ids that sort by time and never go backwards', () => {
    const gen = new InternalIdGenerator();
    const a = gen.next(1000);
    const b = gen.next(1000);
    const c = gen.next(999);
    const d = gen.next(1001);
    expect(a).to.match(/^000000000001000-\d{6}-[0-9a-f]{4}$/);
    expect(a < b && b < c && c < d).to.equal(true);
    expect(c.startsWith('000000000001000-')).to.equal(true);
  });

  it('finds documents inside a page of many, by id and by type', async () => {
    const batch = [6, 7, 8, 9].map((m) => doc(m, { documentType: m % 2 ? 'Odd' : 'Even' }));
    await store.write(batch);
    for (const d of batch) expect(await store.get(d.internalId)).to.deep.equal(d);
    expect(minutes(await store.query({ documentType: 'Odd', limit: 30, page: 0 }))).to.deep.equal([
      'ext-9',
      'ext-7',
    ]);
    expect(minutes(await store.query({ limit: 3, page: 0 }))).to.deep.equal(['ext-9', 'ext-8', 'ext-7']);
    expect(minutes(await store.query({ limit: 3, page: 1 }))).to.deep.equal(['ext-6', 'ext-5', 'ext-4']);
  });

  it('lists newest first, by pages', async () => {
    expect(minutes(await store.query({ limit: 30, page: 0 }))).to.deep.equal([
      'ext-5',
      'ext-4',
      'ext-3',
      'ext-2',
      'ext-1',
      'ext-0',
    ]);
    expect(minutes(await store.query({ limit: 4, page: 1 }))).to.deep.equal(['ext-1', 'ext-0']);
    expect(await store.query({ limit: 4, page: 2 })).to.deep.equal([]);
  });

  it('filters by document type through its index, and by user', async () => {
    expect(minutes(await store.query({ documentType: 'OrderLookup', limit: 30, page: 0 }))).to.deep.equal([
      'ext-4',
      'ext-3',
      'ext-1',
    ]);
    expect(minutes(await store.query({ userName: 'alice', limit: 30, page: 0 }))).to.deep.equal([
      'ext-4',
      'ext-2',
      'ext-1',
    ]);
    expect(
      minutes(await store.query({ documentType: 'OrderLookup', userName: 'alice', limit: 1, page: 1 })),
    ).to.deep.equal(['ext-1']);
    expect(await store.query({ documentType: 'Order', limit: 30, page: 0 })).to.deep.equal([]);
  });

  it('filters by time, both ends inclusive', async () => {
    const from = T0 + 60_000;
    const to = T0 + 3 * 60_000;
    expect(minutes(await store.query({ from, to, limit: 30, page: 0 }))).to.deep.equal([
      'ext-3',
      'ext-2',
      'ext-1',
    ]);
    expect(
      minutes(await store.query({ from, to, documentType: 'OrderLookup', limit: 30, page: 0 })),
    ).to.deep.equal(['ext-3', 'ext-1']);
    expect(minutes(await store.query({ from: T0 + 5 * 60_000, limit: 30, page: 0 }))).to.deep.equal([
      'ext-5',
    ]);
    expect(minutes(await store.query({ to: T0, limit: 30, page: 0 }))).to.deep.equal(['ext-0']);
  });

  it('gets one document by internalId', async () => {
    const [newest] = await store.query({ limit: 1, page: 0 });
    expect(await store.get(newest!.internalId)).to.deep.equal(newest);
    expect(await store.get('000000000000000-000000-0000')).to.equal(undefined);
  });

  it('deletes documents older than a time, index entries too', async () => {
    expect(await store.deleteBefore(T0 + 2 * 60_000)).to.equal(2);
    expect(minutes(await store.query({ limit: 30, page: 0 }))).to.deep.equal([
      'ext-5',
      'ext-4',
      'ext-3',
      'ext-2',
    ]);
    expect(minutes(await store.query({ documentType: 'OrderLookup', limit: 30, page: 0 }))).to.deep.equal([
      'ext-4',
      'ext-3',
    ]);
    const left = [];
    for await (const key of storage.store('tracker').store('by-type').keys()) left.push(key);
    expect(left).to.have.length(4);
  });
});

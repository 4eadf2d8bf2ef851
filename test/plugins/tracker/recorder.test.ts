import { expect } from 'chai';
import { pino } from 'pino';
import { FakeClock } from '../../../core/clock.js';
import { createMemoryStorage } from '../../../core/storage/level-storage.js';
import type { Storage } from '../../../core/storage/types.js';
import { BatchingRecorder } from '../../../plugins/tracker/recorder.js';
import { TrackerStore } from '../../../plugins/tracker/store.js';
import type { TrackerDocument } from '../../../plugins/tracker/types.js';

const logger = pino({ level: 'silent' });

function call(n: number, clock: FakeClock): Omit<TrackerDocument, 'internalId'> {
  return {
    externalId: `call-${n}`,
    documentType: 'URL Alias',
    senderId: '127.0.0.1',
    receiverId: '/echo',
    userName: 'Anonymous',
    timeReceived: new Date(clock.now()).toISOString(),
    state: 'OK',
    durationMs: 0.4,
  };
}

describe('plugins/tracker recorder', () => {
  let storage: Storage;
  let store: TrackerStore;
  let clock: FakeClock;
  beforeEach(async () => {
    storage = createMemoryStorage();
    await storage.open();
    store = new TrackerStore(storage.store('tracker'));
    clock = new FakeClock();
  });
  afterEach(() => storage.close());

  const count = async () => (await store.query({ limit: 1000, page: 0 })).length;

  it('returns the internalId at once and writes the batch on the timer', async () => {
    const recorder = new BatchingRecorder(store, clock, logger, {
      flushIntervalMs: 50,
      maxBatch: 100,
      maxQueued: 1000,
    });
    const id = recorder.record(call(1, clock));
    recorder.record(call(2, clock));
    expect(id).to.match(/^\d{15}-\d{6}-[0-9a-f]{4}$/);
    expect(recorder.queued).to.equal(2);
    expect(await count()).to.equal(0);
    await clock.advance(49);
    expect(await count()).to.equal(0);
    await clock.advance(1);
    await recorder.flush();
    expect(await count()).to.equal(2);
    expect((await store.get(id))?.externalId).to.equal('call-1');
    expect(recorder.written).to.equal(2);
  });

  it('writes at once when a batch is full', async () => {
    const recorder = new BatchingRecorder(store, clock, logger, {
      flushIntervalMs: 10_000,
      maxBatch: 3,
      maxQueued: 1000,
    });
    for (let i = 0; i < 3; i++) recorder.record(call(i, clock));
    expect(recorder.queued).to.equal(0);
    await recorder.flush();
    expect(await count()).to.equal(3);
  });

  it('loses nothing on close', async () => {
    const recorder = new BatchingRecorder(store, clock, logger, {
      flushIntervalMs: 10_000,
      maxBatch: 1000,
      maxQueued: 10_000,
    });
    for (let i = 0; i < 250; i++) recorder.record(call(i, clock));
    await recorder.close();
    expect(await count()).to.equal(250);
    expect(clock.pending).to.equal(0);
  });

  it('keeps documents queued when a write fails and writes them on the next attempt', async () => {
    let failures = 1;
    const flaky = Object.create(store) as TrackerStore;
    flaky.write = (docs) => (failures-- > 0 ? Promise.reject(new Error('disk full')) : store.write(docs));
    const recorder = new BatchingRecorder(flaky, clock, logger, {
      flushIntervalMs: 50,
      maxBatch: 1000,
      maxQueued: 1000,
    });
    recorder.record(call(1, clock));
    await recorder.flush();
    expect(recorder.queued).to.equal(1);
    await clock.advance(50);
    await recorder.flush();
    expect(recorder.queued).to.equal(0);
    expect(await count()).to.equal(1);
  });
});

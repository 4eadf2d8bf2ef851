import { expect } from 'chai';
import { pino } from 'pino';
import { FakeClock } from '../../../core/clock.js';
import { createMemoryStorage } from '../../../core/storage/level-storage.js';
import type { Storage } from '../../../core/storage/types.js';
import { InternalIdGenerator } from '../../../plugins/tracker/ids.js';
import { DAY_MS, RetentionSweeper } from '../../../plugins/tracker/retention.js';
import { TrackerStore } from '../../../plugins/tracker/store.js';

const HOUR = 60 * 60 * 1000;

describe('plugins/tracker retention', () => {
  let storage: Storage;
  let store: TrackerStore;
  let clock: FakeClock;
  const ids = new InternalIdGenerator();

  const write = (at: number, externalId: string) =>
    store.write([
      {
        internalId: ids.next(at),
        externalId,
        documentType: 'URL Alias',
        senderId: '127.0.0.1',
        receiverId: '/x',
        userName: 'Anonymous',
        timeReceived: new Date(at).toISOString(),
        state: 'OK',
        durationMs: 1,
      },
    ]);
  const left = async () => (await store.query({ limit: 100, page: 0 })).map((d) => d.externalId);

  beforeEach(async () => {
    storage = createMemoryStorage();
    await storage.open();
    store = new TrackerStore(storage.store('tracker'));
    clock = new FakeClock();
  });
  afterEach(() => storage.close());

  it('deletes documents older than retentionDays on each sweep, and only those', async () => {
    const start = clock.now();
    await write(start - 3 * DAY_MS, 'old');
    await write(start - 2 * DAY_MS + HOUR, 'recent');
    await write(start, 'new');
    const sweeper = new RetentionSweeper(store, clock, pino({ level: 'silent' }), 2, HOUR);
    sweeper.start();
    await clock.advance(0);
    await sweeper.idle();
    expect(await left()).to.deep.equal(['new', 'recent']);

    // Two hours on, "recent" is past two days too: the next hourly sweep takes it.
    await clock.advance(HOUR);
    await sweeper.idle();
    expect(await left()).to.deep.equal(['new', 'recent']);
    await clock.advance(HOUR);
    await sweeper.idle();
    expect(await left()).to.deep.equal(['new']);
    expect(sweeper.deleted).to.equal(2);

    await sweeper.stop();
    expect(clock.pending).to.equal(0);
  });
});

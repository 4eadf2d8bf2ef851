import { expect } from 'chai';
import { FakeClock } from '../../../core/clock.js';
import { createLevelStorage } from '../../../core/storage/level-storage.js';
import type { TrackerOptions } from '../../../plugins/tracker/index.js';
import { DAY_MS } from '../../../plugins/tracker/retention.js';
import { TrackerStore } from '../../../plugins/tracker/store.js';
import {
  TRACKER_RECORDER,
  type TrackerDocument,
  type TrackerRecorder,
} from '../../../plugins/tracker/types.js';
import { tempDir } from '../../helpers.js';
import { aliasApp, bearer, tokenOf, type AliasTestApp } from '../alias/fixture.js';

type Doc = Omit<TrackerDocument, 'internalId'>;

function doc(clock: FakeClock, extra: Partial<Doc> = {}): Doc {
  return {
    externalId: 'ext',
    documentType: 'URL Alias',
    senderId: '127.0.0.1',
    receiverId: '/orders/{id}',
    userName: 'Anonymous',
    timeReceived: new Date(clock.now()).toISOString(),
    state: 'OK',
    durationMs: 2,
    ...extra,
  };
}

describe('plugins/tracker API', () => {
  let app: AliasTestApp;
  let admin: string;
  let recorder: TrackerRecorder;
  afterEach(() => app?.stop());

  /** `token` null: no Authorization header. */
  const get = (url: string, token: string | null = admin, accept = 'application/json') =>
    app.inject({ url, headers: { accept, ...(token === null ? {} : bearer(token)) } });

  describe('queries', () => {
    let ids: string[];
    beforeEach(async () => {
      app = await aliasApp();
      admin = await tokenOf(app, 'alice');
      recorder = app.container.resolve<TrackerRecorder>(TRACKER_RECORDER);
      ids = [];
      for (let i = 0; i < 5; i++) {
        ids.push(
          recorder.record(
            doc(app.clock, {
              externalId: `call-${i}`,
              documentType: i % 2 === 0 ? 'URL Alias' : 'OrderLookup',
              userName: i < 2 ? 'alice' : 'Anonymous',
              state: i === 4 ? 'ERROR' : 'OK',
            }),
          ),
        );
        await app.clock.advance(60_000);
      }
    });

    it('lists documents newest first, with every field', async () => {
      const res = await get('/tracker-api/documents');
      expect(res.statusCode, res.body).to.equal(200);
      const docs = res.json() as TrackerDocument[];
      expect(docs.map((d) => d.externalId)).to.deep.equal(['call-4', 'call-3', 'call-2', 'call-1', 'call-0']);
      expect(docs[0]).to.deep.equal({
        internalId: ids[4],
        externalId: 'call-4',
        documentType: 'URL Alias',
        senderId: '127.0.0.1',
        receiverId: '/orders/{id}',
        userName: 'Anonymous',
        timeReceived: docs[0]!.timeReceived,
        state: 'ERROR',
        durationMs: 2,
      });
    });

    it('filters by documentType, userName, from and to, and pages', async () => {
      const ext = async (query: string) =>
        ((await get(`/tracker-api/documents?${query}`)).json() as TrackerDocument[]).map((d) => d.externalId);
      expect(await ext('documentType=OrderLookup')).to.deep.equal(['call-3', 'call-1']);
      expect(await ext('userName=alice')).to.deep.equal(['call-1', 'call-0']);
      const t1 = (await get(`/tracker-api/document?internalId=${ids[1]}`)).json().timeReceived as string;
      const t3 = Date.parse(t1) + 2 * 60_000;
      expect(await ext(`from=${encodeURIComponent(t1)}&to=${t3}`)).to.deep.equal([
        'call-3',
        'call-2',
        'call-1',
      ]);
      expect(await ext('limit=2&page=1')).to.deep.equal(['call-2', 'call-1']);
      expect(await ext('limit=2&page=3')).to.deep.equal([]);
    });

    it('shows one document by internalId', async () => {
      const res = await get(`/tracker-api/document?internalId=${ids[2]}`);
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.include({ internalId: ids[2], externalId: 'call-2' });
      const missing = await get('/tracker-api/document?internalId=000000000000001-000001-abcd');
      expect(missing.statusCode).to.equal(404);
      expect(missing.json().code).to.equal('JCT_TRACKER_DOCUMENT_NOT_FOUND');
    });

    it('answers bad parameters with a 400 naming them', async () => {
      const noId = await get('/tracker-api/document');
      expect(noId.statusCode).to.equal(400);
      expect(noId.json().message).to.contain('internalId');
      const badFrom = await get('/tracker-api/documents?from=yesterday');
      expect(badFrom.statusCode).to.equal(400);
      expect(badFrom.json()).to.include({ code: 'JCT_VALIDATION' });
      expect(badFrom.json().message).to.contain('"from"');
      const badLimit = await get('/tracker-api/documents?limit=1001');
      expect(badLimit.statusCode).to.equal(400);
      expect(badLimit.json().message).to.contain('limit');
    });

    it('counts written documents on /metrics', async () => {
      await get('/tracker-api/documents');
      const metrics = (await app.inject('/metrics')).body;
      expect(metrics).to.match(/^junction_tracker_documents_written_total 5$/m);
      expect(metrics).to.match(/^junction_tracker_queue_length 0$/m);
    });

    it('answers XML when Accept prefers it', async () => {
      const res = await get('/tracker-api/documents?limit=1', admin, 'application/xml');
      expect(res.headers['content-type']).to.match(/^application\/xml/);
      expect(res.body).to.contain('<externalId>call-4</externalId>');
    });

    it('needs an administrator: 401 without a token, 403 for another user', async () => {
      for (const url of ['/tracker-api/documents', `/tracker-api/document?internalId=${ids[0]}`]) {
        const none = await get(url, null);
        expect(none.statusCode).to.equal(401);
        expect(none.headers['www-authenticate']).to.match(/^Bearer/);
        const bad = await get(url, 'not-a-token');
        expect(bad.statusCode).to.equal(401);
        const bob = await get(url, await tokenOf(app, 'bob'));
        expect(bob.statusCode).to.equal(403);
        expect(bob.json().code).to.equal('JCT_FORBIDDEN');
      }
      // Checked before validation: a caller without a token learns nothing about parameters.
      expect((await get('/tracker-api/document', null)).statusCode).to.equal(401);
    });
  });

  it('deletes documents past tracker.retentionDays on the periodic sweep', async () => {
    const hour = 60 * 60 * 1000;
    app = await aliasApp({ config: { tracker: { retentionDays: 2 } }, tracker: { sweepIntervalMs: hour } });
    admin = await tokenOf(app, 'alice');
    recorder = app.container.resolve<TrackerRecorder>(TRACKER_RECORDER);
    const old = recorder.record(doc(app.clock, { externalId: 'old' }));
    await app.clock.advance(DAY_MS);
    const recent = recorder.record(doc(app.clock, { externalId: 'recent' }));
    await app.clock.advance(DAY_MS + hour);
    await app.tracker!.runtime!.retention.idle();
    // A fresh token: access tokens live an hour and two days have passed.
    admin = await tokenOf(app, 'alice');
    expect((await get(`/tracker-api/document?internalId=${old}`)).statusCode).to.equal(404);
    expect((await get(`/tracker-api/document?internalId=${recent}`)).statusCode).to.equal(200);
    await app.clock.advance(DAY_MS);
    await app.tracker!.runtime!.retention.idle();
    admin = await tokenOf(app, 'alice');
    expect((await get('/tracker-api/documents')).json()).to.deep.equal([]);
  });

  it('refuses unknown or malformed plugin options, naming them', async () => {
    for (const [options, message] of [
      [{ flushMs: 5 }, 'tracker option "flushMs" is unknown'],
      [{ sweepIntervalMs: 0 }, 'tracker option "sweepIntervalMs" must be a positive integer'],
    ] as const) {
      const failed = await aliasApp({ tracker: options as TrackerOptions }).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(failed?.message).to.contain(message);
    }
  });

  it('writes every queued document before a graceful shutdown completes', async () => {
    const dataDir = tempDir();
    app = await aliasApp({ storage: createLevelStorage(dataDir), tracker: { flushIntervalMs: 3_600_000 } });
    recorder = app.container.resolve<TrackerRecorder>(TRACKER_RECORDER);
    const ids = Array.from({ length: 300 }, (_, i) =>
      recorder.record(doc(app.clock, { externalId: `d${i}` })),
    );
    await app.stop();
    const storage = createLevelStorage(dataDir);
    await storage.open();
    try {
      const store = new TrackerStore(storage.store('tracker'));
      const found = await store.query({ limit: 1000, page: 0 });
      expect(found.map((d) => d.internalId).sort()).to.deep.equal([...ids].sort());
    } finally {
      await storage.close();
    }
  });
});

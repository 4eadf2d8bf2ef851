import { expect } from 'chai';
import { pino } from 'pino';
import type { TrackerDocument } from '../../../plugins/tracker/types.js';
import { aliasApp, bearer, tokenOf, type AliasTestApp } from './fixture.js';
import { ORDERS } from './packages.js';

describe('plugins/alias: tracker logging', () => {
  let app: AliasTestApp;
  afterEach(() => app?.stop());

  const documents = async (query = ''): Promise<TrackerDocument[]> => {
    const res = await app.inject({
      url: `/tracker-api/documents${query}`,
      headers: bearer(await tokenOf(app, 'alice')),
    });
    expect(res.statusCode, res.body).to.equal(200);
    return res.json() as TrackerDocument[];
  };

  it('stores a document for each call of an alias with logToTracker', async () => {
    app = await aliasApp({ packages: { orders: ORDERS } });
    const received = new Date(app.clock.now()).toISOString();
    const ok = await app.inject({ url: '/api/tracked/42', headers: { 'x-external-id': 'order-42' } });
    expect(ok.statusCode).to.equal(200);
    await app.inject('/api/tracked-fail?status=409');
    await app.inject({ url: '/api/tracked-secure', headers: bearer(await tokenOf(app, 'sam')) });
    await app.inject('/api/tracked-secure');
    // Untracked aliases leave nothing.
    await app.inject('/api/echo');

    const docs = await documents();
    expect(docs).to.have.length(4);
    const [unauthorized, secured, failed, lookup] = docs;
    expect(lookup).to.deep.equal({
      internalId: lookup!.internalId,
      externalId: 'order-42',
      documentType: 'OrderLookup',
      senderId: '127.0.0.1',
      receiverId: '/tracked/{id}',
      userName: 'Anonymous',
      timeReceived: received,
      state: 'OK',
      durationMs: lookup!.durationMs,
    });
    expect(lookup!.durationMs).to.be.a('number').and.at.least(0);
    expect(failed).to.include({ documentType: 'URL Alias', state: 'ERROR', receiverId: '/tracked-fail' });
    // Without X-External-Id (or X-Request-Id), the request id of the log line.
    expect(failed!.externalId).to.match(/^req-/);
    expect(secured).to.include({ userName: 'sam', state: 'OK' });
    expect(unauthorized).to.include({ userName: 'Anonymous', state: 'ERROR' });
    expect(await documents('?documentType=OrderLookup')).to.have.length(1);
    expect(await documents('?userName=sam')).to.have.length(1);
  });

  it('keeps answering, untracked, when no tracker plugin is loaded, and says so at start', async () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    app = await aliasApp({ packages: { orders: ORDERS }, tracker: false, logger });
    const warnings = lines.filter((l) => l.level === 40).map((l) => l.msg);
    expect(warnings.filter((m) => m.includes('tracker plugin is not loaded'))).to.have.length(3);
    expect(warnings.join('\n')).to.contain('alias /tracked/{id} of package "orders" has logToTracker');
    expect((await app.inject('/api/tracked/1')).statusCode).to.equal(200);
    expect((await app.inject('/tracker-api/documents')).statusCode).to.equal(404);
  });
});

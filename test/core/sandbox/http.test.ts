import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pkg, testSandbox, type TestSandbox } from './fixtures.js';

const client = pkg('client', {
  'Http.js': `
    export async function get(input, ctx) {
      const r = await ctx.http.fetch(input.url, input.init);
      return { status: r.status, statusText: r.statusText, ok: r.ok, type: r.headers['content-type'],
               body: r.body, json: r.headers['content-type'] === 'application/json' ? await r.json() : null,
               text: await r.text() };
    }
    export async function failure(input, ctx) {
      try { await ctx.http.fetch(input.url); return 'no error'; }
      catch (e) { return { message: e.message, code: e.code, status: e.status }; }
    }`,
});

describe('sandbox: ctx.http.fetch', () => {
  let server: Server;
  let base: string;
  let t: TestSandbox;
  const seen: { method: string; body: string; type: string | undefined; header: string | undefined }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({
          method: req.method!,
          body,
          type: req.headers['content-type'],
          header: req.headers['x-test'] as string,
        });
        if (req.url === '/json') {
          res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ hello: 'world' }));
        } else if (req.url === '/big') {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000));
        } else if (req.url === '/big-chunked') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('y'.repeat(800));
          res.write('y'.repeat(800));
          res.end();
        } else if (req.url === '/hang') {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.write('partial'); // and never end
        } else if (req.url === '/missing') {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('nothing here');
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('plain text');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    t = testSandbox([client], { httpTimeoutMs: 300, httpMaxBytes: 1024, timeoutMs: 2000 });
  });
  afterEach(() => t.sandbox.close());

  it('returns status, statusText, headers, body, text() and json()', async () => {
    expect(await t.run(client.key, 'Http.get', { url: `${base}/json` })).to.deep.equal({
      status: 201,
      statusText: 'Created',
      ok: true,
      type: 'application/json',
      body: '{"hello":"world"}',
      json: { hello: 'world' },
      text: '{"hello":"world"}',
    });
    const missing = (await t.run(client.key, 'Http.get', { url: `${base}/missing` })) as Record<
      string,
      unknown
    >;
    expect(missing).to.include({ status: 404, ok: false, body: 'nothing here' });
  });

  it('sends method, headers and a JSON body', async () => {
    await t.run(client.key, 'Http.get', {
      url: `${base}/echo`,
      init: { method: 'post', headers: { 'X-Test': 'yes' }, body: { a: 1 } },
    });
    expect(seen).to.deep.equal([
      { method: 'POST', body: '{"a":1}', type: 'application/json', header: 'yes' },
    ]);
  });

  it('fails past httpTimeoutMs with a catchable JCT_SANDBOX_HTTP', async () => {
    const out = (await t.run(client.key, 'Http.failure', { url: `${base}/hang` })) as Record<string, unknown>;
    expect(out.code).to.equal('JCT_SANDBOX_HTTP');
    expect(out.status).to.equal(502);
    expect(out.message).to.contain('/hang').and.contain('300 ms');
  });

  it('aborts a body over httpMaxBytes (declared or streamed)', async () => {
    for (const path of ['/big', '/big-chunked']) {
      const out = (await t.run(client.key, 'Http.failure', { url: `${base}${path}` })) as Record<
        string,
        unknown
      >;
      expect(out.code).to.equal('JCT_SANDBOX_HTTP');
      expect(out.message).to.contain('over 1024 bytes');
    }
  });

  it('refuses URLs that are not http or https', async () => {
    for (const url of ['file:///etc/passwd', 'ftp://127.0.0.1/x', 'not a url']) {
      const out = (await t.run(client.key, 'Http.failure', { url })) as Record<string, unknown>;
      expect(out.code, url).to.equal('JCT_SANDBOX_HTTP');
    }
  });

  it('an uncaught fetch failure fails the call with the fetch error code', async () => {
    const err = await t.run(client.key, 'Http.get', { url: 'file:///etc/passwd' }).catch((e: Error) => e);
    expect(err).to.include({ code: 'JCT_SANDBOX_HTTP', statusCode: 502 });
  });
});

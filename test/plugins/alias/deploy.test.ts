import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { PackageInfo } from '../../../core/services/types.js';
import { createAliasPlugin } from '../../../plugins/alias/index.js';
import { testApp, testConfig } from '../../helpers.js';
import { aliasApp, writePackage, type AliasTestApp } from './fixture.js';
import { tinyPackage } from './packages.js';

describe('plugins/alias: hot deploy', () => {
  let app: AliasTestApp;
  afterEach(() => app?.stop());

  const info = async (name: string): Promise<PackageInfo> => {
    const res = await app.inject(`/packages/${name}`);
    return res.json() as PackageInfo;
  };

  it('adds, changes and removes aliases without a restart', async () => {
    app = await aliasApp({ packages: { a: tinyPackage('a', '/first', 'GET') } });
    const dir = app.config.servicesDir;
    expect((await app.inject('/api/first')).json()).to.deep.include({ package: 'a' });

    writePackage(dir, 'b', tinyPackage('b', '/second'));
    await app.rescan();
    expect((await app.inject({ method: 'POST', url: '/api/second' })).json()).to.deep.include({
      package: 'b',
    });

    // Changed: the URL moves and the method changes.
    writePackage(dir, 'a', tinyPackage('a', '/moved/{x}', 'PUT'));
    await app.rescan();
    expect((await app.inject('/api/first')).statusCode).to.equal(404);
    expect((await app.inject({ method: 'PUT', url: '/api/moved/1' })).json()).to.deep.equal({
      package: 'a',
      input: { x: '1' },
    });
    expect((await app.inject('/api/moved/1')).headers.allow).to.equal('PUT');

    rmSync(join(dir, 'b'), { recursive: true });
    await app.rescan();
    expect((await app.inject({ method: 'POST', url: '/api/second' })).statusCode).to.equal(404);
  });

  it('follows the folder watcher: an alias added and removed while the server runs', async () => {
    app = await aliasApp({ config: { hotDeploy: { enabled: true, debounceMs: 100 } } });
    const dir = app.config.servicesDir;
    // The watcher's events arrive in real time; its debounce runs on the fake clock.
    const settle = async (done: () => Promise<boolean>): Promise<void> => {
      const until = Date.now() + 10_000;
      while (!(await done())) {
        if (Date.now() > until) throw new Error('the watcher did not deploy the change');
        await new Promise((r) => setTimeout(r, 20));
        await app.clock.advance(100);
      }
    };
    writePackage(dir, 'live', tinyPackage('live', '/live/{id}', 'GET'));
    await settle(async () => (await app.inject('/api/live/1')).statusCode === 200);
    expect((await app.inject('/api/live/1')).json()).to.deep.equal({ package: 'live', input: { id: '1' } });
    rmSync(join(dir, 'live'), { recursive: true });
    await settle(async () => (await app.inject('/api/live/1')).statusCode === 404);
  });

  it('refuses a conflicting alias naming both packages; the first keeps serving', async () => {
    app = await aliasApp({
      packages: {
        a: tinyPackage('a', '/orders/{id}', 'GET'),
        z: tinyPackage('z', '/orders/{orderId}'),
      },
    });
    const z = await info('z');
    expect(z.status).to.equal('failed');
    expect(z.errors.join('\n')).to.match(/package "z".*package "a"/);
    expect(z.errors.join('\n')).to.contain('conflicts with alias GET /orders/{id}');
    expect((await app.inject('/api/orders/1')).json()).to.deep.include({ package: 'a' });

    // Fixed by a method that does not overlap: z deploys.
    writePackage(app.config.servicesDir, 'z', tinyPackage('z', '/orders/{orderId}', 'DELETE'));
    await app.rescan();
    expect((await info('z')).status).to.equal('deployed');
    expect((await app.inject({ method: 'DELETE', url: '/api/orders/1' })).json()).to.deep.include({
      package: 'z',
    });
    expect((await app.inject('/api/orders/1')).json()).to.deep.include({ package: 'a' });
  });

  it('junction check reports a conflict between two packages', async () => {
    const servicesDir = testConfig().servicesDir;
    writePackage(servicesDir, 'a', tinyPackage('a', '/orders/{id}', 'GET'));
    writePackage(servicesDir, 'z', tinyPackage('z', '/orders/{orderId}'));
    const checker = await testApp({
      start: false,
      config: { servicesDir, hotDeploy: { enabled: false } },
      plugins: [{ plugin: createAliasPlugin() }],
    });
    const problems = await checker.check();
    expect(problems.join('\n')).to.match(
      /package "z".*conflicts with alias GET \/orders\/\{id\} of package "a"/,
    );
  });

  it('keeps the previous version serving when a redeploy has a bad alias', async () => {
    app = await aliasApp({ packages: { a: tinyPackage('a', '/good') } });
    writePackage(app.config.servicesDir, 'a', tinyPackage('a', '/bad', undefined, '    runAs: nobody\n'));
    await app.rescan();
    const a = await info('a');
    expect(a.status).to.equal('deployed');
    expect(a.errors.join('\n')).to.contain('"runAs" names the unknown user "nobody"');
    expect((await app.inject('/api/good')).statusCode).to.equal(200);
    expect((await app.inject('/api/bad')).statusCode).to.equal(404);
  });

  it('refuses an alias whose service the package does not export', async () => {
    app = await aliasApp({
      packages: {
        a: {
          yaml: 'name: a\nversion: 1.0.0\naliases:\n  - url: /x\n    service: Tiny.missing\n',
          code: { 'Tiny.js': 'export async function who() { return 1; }\n' },
        },
      },
    });
    const a = await info('a');
    expect(a.status).to.equal('failed');
    // The registry checks this before the alias plugin's own check (table.test.ts) gets to it.
    expect(a.errors.join('\n')).to.contain('Tiny.missing');
    expect((await app.inject('/api/x')).statusCode).to.equal(404);
  });
});

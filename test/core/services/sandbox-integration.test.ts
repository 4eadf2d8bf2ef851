/**
 * The registry through the real sandbox (worker pool + isolates): what only real code shows —
 * compile and link errors, imports between modules, ctx.invoke, errors with a status, versions
 * held by calls in flight, concurrency — and the demo package.
 */
import { expect } from 'chai';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { deferred, manifest, servicesApp, writePackage, type ServicesApp } from './helpers.js';

const repoServices = join(import.meta.dirname, '..', '..', '..', '..', 'services');

describe('core/services with the real sandbox', function () {
  this.timeout(30_000);
  let app: ServicesApp;
  let dir: string;
  /** Calls parked in `ctx.flux.sendEvent` until the test releases them. */
  const parked: { args: unknown; release: () => void }[] = [];

  before(async () => {
    app = await servicesApp({ start: false, config: { sandbox: { threads: 2, timeoutMs: 1500 } } });
    dir = app.config.servicesDir;
    app.services.provideHostFunction('flux.sendEvent', async (args) => {
      const gate = deferred();
      parked.push({ args, release: () => gate.resolve() });
      await gate.promise;
      return { accepted: true };
    });
    writePackage(dir, 'orders', {
      'package.yaml': manifest('orders', '1.0.0', '  - url: /check\n    service: approval.Checks.validate\n'),
      'code/approval/Checks.js': [
        "import { total } from '../lib/Money.js';",
        'export async function validate(input, ctx) {',
        '  if (!Array.isArray(input.lines)) throw Object.assign(new Error("lines: required"), { status: 422 });',
        '  return { total: total(input.lines), user: ctx.user.username, pkg: ctx.package };',
        '}',
        'export async function viaInvoke(input, ctx) { return ctx.invoke("approval.Checks.validate", input); }',
        'export async function other(input, ctx) { return ctx.invoke("hello/Greeter.greet", input); }',
        'export async function recurse(input, ctx) { return ctx.invoke("approval.Checks.recurse", input); }',
        'export async function park(input, ctx) { await ctx.flux.sendEvent({ event: "x" }); return "v1"; }',
      ].join('\n'),
      'code/lib/Money.js': 'export function total(lines) { return lines.reduce((s, l) => s + l.price, 0); }',
    });
    cpSync(join(repoServices, 'hello'), join(dir, 'hello'), { recursive: true });
    const bad = (name: string, code: Record<string, string>) =>
      writePackage(dir, name, { 'package.yaml': manifest(name), ...code });
    writePackage(dir, 'flows', {
      'package.yaml': manifest('flows'),
      'flux/Approval.flux.yaml': 'states: [{ name: start }]\n',
    });
    bad('syntax', { 'code/Broken.js': 'export function f( {' });
    bad('badimport', { 'code/A.js': "import { readFileSync } from 'node:fs';\nexport function f() {}" });
    bad('missingexport', {
      'code/A.js': "import { nope } from './B.js';\nexport function f() { return nope; }",
      'code/B.js': 'export function yes() {}',
    });
    bad('endless', { 'code/A.js': 'while (true) {}\nexport function f() {}' });
    writePackage(dir, 'temp', {
      'package.yaml': manifest('temp'),
      'code/T.js':
        'export async function park(input, ctx) { await ctx.flux.sendEvent({}); return "finished"; }',
    });
    bad('toplevel', { 'code/A.js': 'throw new Error("boom at load");\nexport function f() {}' });
    await app.start({ listen: false });
  });
  after(() => app.stop());

  it('names services across folders and runs modules that import each other', async () => {
    expect(app.services.info('orders')!.services).to.deep.equal([
      'approval.Checks.other',
      'approval.Checks.park',
      'approval.Checks.recurse',
      'approval.Checks.validate',
      'approval.Checks.viaInvoke',
      'lib.Money.total',
    ]);
    const out = await app.services.invoke(
      'orders/approval.Checks.validate',
      { lines: [{ price: 2 }, { price: 3 }] },
      { user: { username: 'alice', groups: [] } },
    );
    expect(out).to.deep.equal({ total: 5, user: 'alice', pkg: 'orders' });
  });

  it('reports code that does not compile, link or load, naming the module, and serves the rest', async () => {
    const errors = (name: string) => app.services.info(name)!.errors.join('\n');
    expect(app.services.info('syntax')!.status).to.equal('failed');
    expect(errors('syntax')).to.match(/^syntax: .*Broken\.js/);
    expect(errors('badimport')).to.match(/^badimport: .*A\.js/);
    expect(errors('badimport')).to.include('node:fs');
    expect(errors('missingexport')).to.match(/^missingexport: .*A\.js/);
    expect(errors('missingexport')).to.include('nope');
    expect(errors('toplevel')).to.match(/^toplevel: .*A\.js/);
    expect(errors('toplevel')).to.include('boom at load');
    expect(errors('endless')).to.match(/^endless: .*ran past 1500 ms/);
    expect(app.services.hasPackage('hello')).to.equal(true);
  });

  it('undeploys a removed folder while a call runs: the call finishes, new calls are not found', async () => {
    const inFlight = app.services.invoke('temp/T.park', {});
    while (parked.length === 0) await new Promise((r) => setTimeout(r, 5));
    rmSync(join(dir, 'temp'), { recursive: true });
    await app.services.rescan();
    expect(app.services.hasPackage('temp')).to.equal(false);
    const err = await app.services.invoke('temp/T.park', {}).catch((e: unknown) => e);
    expect(err).to.deep.include({ code: 'JCT_SERVICE_NOT_FOUND' });
    expect(app.services.drainingVersions()).to.have.length(1);
    parked.shift()!.release();
    expect(await inFlight).to.equal('finished');
    expect(app.services.drainingVersions()).to.deep.equal([]);
  });

  it('runs nested ctx.invoke within the package and across packages, and stops runaway recursion', async () => {
    expect(
      await app.services.invoke('orders/approval.Checks.viaInvoke', { lines: [{ price: 1 }] }),
    ).to.deep.include({
      total: 1,
    });
    expect(await app.services.invoke('orders/approval.Checks.other', { name: 'Bo' })).to.deep.equal({
      message: 'Hello, Bo!',
    });
    const err = await app.services.invoke('orders/approval.Checks.recurse', {}).catch((e: unknown) => e);
    expect(err).to.deep.include({ code: 'JCT_SANDBOX_INVOKE_DEPTH' });
  });

  it('evaluates expressions in a package, with or without code', async () => {
    expect(
      await app.services.evaluate('flows', ['vars.a + 1', 'event === "go"'], { vars: { a: 1 }, event: 'go' }),
    ).to.deep.equal([2, true]);
    expect(app.services.info('flows')).to.deep.include({ services: [], workflows: ['Approval'] });
    expect(await app.services.evaluate('orders', ['vars.n * 2'], { vars: { n: 21 } })).to.deep.equal([42]);
  });

  it("answers a service's error with its status", async () => {
    const err = await app.services.invoke('orders/approval.Checks.validate', {}).catch((e: unknown) => e);
    expect(err).to.deep.include({ statusCode: 422, message: 'lines: required' });
  });

  it('runs 50 concurrent calls', async () => {
    const outs = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        app.services.invoke('orders/approval.Checks.validate', { lines: [{ price: i }] }),
      ),
    );
    expect(outs.map((o) => (o as { total: number }).total)).to.deep.equal([...Array(50).keys()]);
  });

  it('finishes a call in flight on its version across a redeploy; a failed redeploy keeps the last good one', async () => {
    const inFlight = app.services.invoke('orders/approval.Checks.park', {});
    while (parked.length === 0) await new Promise((r) => setTimeout(r, 5));
    const v1 = app.services.drainingVersions();
    expect(v1).to.deep.equal([]);

    writePackage(dir, 'orders', {
      'package.yaml': manifest('orders', '2.0.0'),
      'code/approval/Checks.js': 'export async function park() { return "v2"; }',
    });
    await app.services.reload('orders');
    expect(app.services.info('orders')).to.deep.include({ version: '2.0.0', status: 'deployed' });
    expect(await app.services.invoke('orders/approval.Checks.park', {})).to.equal('v2');
    expect(app.services.drainingVersions()).to.have.length(1);
    parked.shift()!.release();
    expect(await inFlight).to.equal('v1');
    expect(app.services.drainingVersions()).to.deep.equal([]);

    writePackage(dir, 'orders', { 'code/approval/Checks.js': 'export async function park( {' });
    await app.services.reload('orders');
    const info = app.services.info('orders')!;
    expect(info).to.deep.include({ version: '2.0.0', status: 'deployed' });
    expect(info.errors.join()).to.include('Checks.js');
    expect(await app.services.invoke('orders/approval.Checks.park', {})).to.equal('v2');
  });

  it('serves the demo package: greet, echo, welcome', async () => {
    expect(await app.services.invoke('hello/Greeter.greet', { name: 'Ada', lang: 'fr' })).to.deep.equal({
      message: 'Bonjour, Ada!',
    });
    expect(await app.services.invoke('Greeter.welcome', { name: 'Ada' }, { package: 'hello' })).to.deep.equal(
      {
        message: 'Hello, Ada! Welcome to Junction.',
      },
    );
    const user = { username: 'u', groups: ['g'] };
    expect(await app.services.invoke('hello/Greeter.echo', { a: [1, 2] }, { user })).to.deep.equal({
      input: { a: [1, 2] },
      user,
      package: 'hello',
    });
    const err = await app.services
      .invoke('hello/Greeter.greet', { name: 'x', lang: 'xx' })
      .catch((e: unknown) => e);
    expect(err).to.deep.include({ statusCode: 400, code: 'HELLO_LANG' });
    expect(app.services.info('hello')!.aliases.map((a) => a.url)).to.deep.equal(['/hello/{name}', '/echo']);
  });

  it('passes check() on the shipped services folder', async () => {
    const checker = await servicesApp({ start: false, config: { servicesDir: repoServices } });
    expect(await checker.check()).to.deep.equal([]);
  });
});

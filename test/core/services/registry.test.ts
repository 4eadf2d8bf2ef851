import { expect } from 'chai';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { JunctionEventMap } from '../../../core/events.js';
import type { SandboxCall } from '../../../core/sandbox/types.js';
import { FakeSandbox } from './fake-sandbox.js';
import { deferred, manifest, servicesApp, writePackage, type ServicesApp } from './helpers.js';

const code = 'export async function greet(input) {}\nexport async function slow(input) {}\n';

describe('core/services registry', () => {
  let app: ServicesApp;
  let fake: FakeSandbox;
  let dir: string;
  beforeEach(async () => {
    fake = new FakeSandbox();
    app = await servicesApp({ sandbox: (h) => fake.bind(h), start: false });
    dir = app.config.servicesDir;
    writePackage(dir, 'a', { 'package.yaml': manifest('a'), 'code/util/Greeter.js': code });
    writePackage(dir, 'b', { 'package.yaml': manifest('b'), 'code/Greeter.js': code });
    await app.start({ listen: false });
  });
  afterEach(() => app.stop());

  const keyOf = (name: string) => fake.inspected.filter((k) => k.startsWith(`${name}@`)).at(-1)!;

  describe('invoke', () => {
    it('resolves <package>/<class>.<method> anywhere and <class>.<method> within options.package', async () => {
      expect(await app.services.invoke('a/util.Greeter.greet', { x: 1 })).to.deep.equal({
        key: keyOf('a'),
        fn: 'greet',
        input: { x: 1 },
      });
      const call = fake.calls.at(-1)!;
      expect(call).to.deep.include({ module: 'util/Greeter.js', depth: 0 });
      expect(call.user).to.deep.equal({ username: 'Anonymous', groups: [] });
      await app.services.invoke(
        'Greeter.greet',
        {},
        { package: 'b', user: { username: 'al', groups: ['g'] } },
      );
      expect(fake.calls.at(-1)).to.deep.include({ key: keyOf('b'), module: 'Greeter.js' });
      expect(fake.calls.at(-1)!.user).to.deep.equal({ username: 'al', groups: ['g'] });
      // A qualified name wins over options.package.
      await app.services.invoke('a/util.Greeter.greet', {}, { package: 'b' });
      expect(fake.calls.at(-1)!.key).to.equal(keyOf('a'));
    });

    it('answers JCT_SERVICE_NOT_FOUND (404) for unknown packages, services and unqualified names', async () => {
      const cases: [string, string | undefined, RegExp][] = [
        ['x/Greeter.greet', undefined, /package x is not deployed/],
        ['b/Greeter.nope', undefined, /package b has no service Greeter\.nope/],
        ['util.Greeter.greet', 'b', /package b has no service util\.Greeter\.greet/],
        ['Greeter.greet', undefined, /name the package \(<package>\/Greeter\.greet\)/],
      ];
      for (const [name, pkg, message] of cases) {
        const err = await app.services.invoke(name, {}, pkg ? { package: pkg } : {}).then(
          () => undefined,
          (e: unknown) => e as { code: string; statusCode: number; message: string },
        );
        expect(err, name).to.deep.include({ code: 'JCT_SERVICE_NOT_FOUND', statusCode: 404 });
        expect(err!.message, name).to.match(message);
      }
    });

    it('runs nested calls through the host with the depth counted, up to sandbox.maxInvokeDepth', async () => {
      fake.handlers.set('Greeter.js#greet', async (call: SandboxCall, host) => {
        const n = (call.input as { n: number }).n;
        if (n === 0) return { depth: call.depth, user: call.user.username };
        return host.invoke(
          'Greeter.greet',
          { n: n - 1 },
          { package: 'b', user: call.user, depth: call.depth + 1 },
        );
      });
      const user = { username: 'al', groups: [] };
      expect(await app.services.invoke('b/Greeter.greet', { n: 3 }, { user })).to.deep.equal({
        depth: 3,
        user: 'al',
      });
      const limit = app.config.sandbox.maxInvokeDepth;
      const err = await app.services.invoke('b/Greeter.greet', { n: limit + 1 }).catch((e: unknown) => e);
      expect(err).to.deep.include({ code: 'JCT_SANDBOX_INVOKE_DEPTH', statusCode: 500 });
    });

    it('evaluates expressions with the live version of a package; 404 for an unknown package', async () => {
      const [r] = (await app.services.evaluate('a', ['vars.x + 1'], { vars: { x: 1 } })) as { key: string }[];
      expect(r!.key).to.equal(keyOf('a'));
      const err = await app.services.evaluate('zz', ['1'], {}).catch((e: unknown) => e);
      expect(err).to.deep.include({ code: 'JCT_PACKAGE_NOT_FOUND', statusCode: 404 });
    });

    it('reaches host functions a plugin provided, and says which plugin is missing otherwise', async () => {
      app.services.provideHostFunction('audit.write', async (args, caller) => ({ args, caller }));
      const caller = { package: 'a', user: { username: 'u', groups: [] } };
      expect(await fake.host.call('audit.write', { x: 1 }, caller)).to.deep.equal({ args: { x: 1 }, caller });
      const err = await fake.host.call('flux.sendEvent', {}, caller).catch((e: unknown) => e);
      expect(err).to.deep.include({ code: 'JCT_HOST_FUNCTION_UNAVAILABLE', statusCode: 501 });
      expect((err as Error).message).to.equal(
        'ctx.flux.sendEvent is not available: the flux plugin is not loaded',
      );
      expect(() => app.services.provideHostFunction('audit.write', async () => 1)).to.throw(/provided twice/);
    });

    it('runs 50 concurrent calls', async () => {
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => app.services.invoke('a/util.Greeter.greet', { i })),
      );
      expect(results.map((r) => (r as { input: { i: number } }).input.i)).to.deep.equal([
        ...Array(50).keys(),
      ]);
    });
  });

  describe('versions', () => {
    function events(): (keyof JunctionEventMap | string)[] {
      const seen: string[] = [];
      app.events.on('package.deployed', (e) => seen.push(`deployed ${e.name} ${e.version}`));
      app.events.on('package.failed', (e) => seen.push(`failed ${e.name}`));
      app.events.on('package.undeployed', (e) => seen.push(`undeployed ${e.name}`));
      return seen;
    }

    it('finishes a call in flight on its version across a redeploy, then forgets that version', async () => {
      const seen = events();
      const hold = deferred();
      fake.handlers.set('Greeter.js#slow', async (call) => {
        await hold.promise;
        return call.key;
      });
      const v1 = keyOf('b');
      const inFlight = app.services.invoke('b/Greeter.slow', {});
      writePackage(dir, 'b', { 'package.yaml': manifest('b', '2.0.0') });
      writePackage(dir, 'b', { 'code/Greeter.js': code + 'export function added() {}' });
      await app.services.reload('b');
      const v2 = keyOf('b');
      expect(v2).to.not.equal(v1);
      expect(seen).to.deep.equal(['deployed b 2.0.0']);
      expect(app.services.info('b')).to.deep.include({ version: '2.0.0' });
      // New calls run on the new version while the old one drains.
      expect(await app.services.invoke('b/Greeter.added', {})).to.deep.include({ key: v2 });
      expect(app.services.drainingVersions()).to.deep.equal([v1]);
      expect(fake.forgotten).to.not.include(v1);
      hold.resolve();
      expect(await inFlight).to.equal(v1);
      expect(fake.forgotten).to.include(v1);
      expect(app.services.drainingVersions()).to.deep.equal([]);
    });

    it('keeps the previous version serving after a failed redeploy, and recovers on the next change', async () => {
      const seen = events();
      const v1 = keyOf('a');
      writePackage(dir, 'a', { 'package.yaml': 'name: a\nversion: "2"\naliases: [' });
      await app.services.reload('a');
      const info = app.services.info('a')!;
      expect(info.status).to.equal('deployed');
      expect(info.version).to.equal('1.0.0');
      expect(info.errors[0]).to.match(/^a\/package\.yaml: YAML syntax error/);
      expect(await app.services.invoke('a/util.Greeter.greet', {})).to.deep.include({ key: v1 });
      writePackage(dir, 'a', { 'package.yaml': manifest('a', '2') });
      await app.services.reload('a');
      expect(app.services.info('a')).to.deep.include({ version: '2', errors: [] });
      expect(seen).to.deep.equal(['failed a', 'deployed a 2']);
      expect(fake.forgotten).to.include(v1);
    });

    it('does not redeploy a folder whose content did not change', async () => {
      const before = fake.inspected.length;
      await app.services.reload('a');
      await app.services.rescan();
      expect(fake.inspected.length).to.equal(before);
    });

    it('undeploys a removed folder; calls in flight finish, new ones are not found', async () => {
      const seen = events();
      const hold = deferred();
      fake.handlers.set('util/Greeter.js#slow', async () => {
        await hold.promise;
        return 'done';
      });
      const inFlight = app.services.invoke('a/util.Greeter.slow', {});
      rmSync(join(dir, 'a'), { recursive: true });
      await app.services.rescan();
      expect(seen).to.deep.equal(['undeployed a']);
      expect(app.services.hasPackage('a')).to.equal(false);
      expect(app.services.packages().map((p) => p.name)).to.deep.equal(['b']);
      const err = await app.services.invoke('a/util.Greeter.greet', {}).catch((e: unknown) => e);
      expect(err).to.deep.include({ code: 'JCT_SERVICE_NOT_FOUND' });
      hold.resolve();
      expect(await inFlight).to.equal('done');
      expect(fake.forgotten).to.include(keyOf('a'));
    });

    it('serves every call during repeated redeploys (no call dropped)', async () => {
      const calls: Promise<unknown>[] = [];
      for (let v = 2; v < 7; v++) {
        for (let i = 0; i < 10; i++) calls.push(app.services.invoke('b/Greeter.greet', { i }));
        writePackage(dir, 'b', { 'package.yaml': manifest('b', `${v}.0.0`) });
        const deploy = app.services.reload('b');
        for (let i = 0; i < 10; i++) calls.push(app.services.invoke('b/Greeter.greet', { i }));
        await deploy;
      }
      const results = await Promise.allSettled(calls);
      expect(results.filter((r) => r.status === 'rejected')).to.deep.equal([]);
      expect(app.services.info('b')!.version).to.equal('6.0.0');
    });
  });
});

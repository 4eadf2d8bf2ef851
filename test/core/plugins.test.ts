import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { hashPassword } from '../../core/password.js';
import type { JunctionPlugin } from '../../core/plugins/types.js';
import { tempDir, testApp } from '../helpers.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function recorder(log: string[], name: string, extra: Partial<JunctionPlugin> = {}): JunctionPlugin {
  return {
    name,
    register: () => void log.push(`register ${name}`),
    start: () => void log.push(`start ${name}`),
    stop: () => void log.push(`stop ${name}`),
    ...extra,
  };
}

describe('core/plugins', () => {
  it('registers and starts in order, stops in reverse', async () => {
    const log: string[] = [];
    const app = await testApp({
      plugins: [
        { plugin: recorder(log, 'a') },
        { plugin: recorder(log, 'b', { dependsOn: ['a'] }) },
        { plugin: recorder(log, 'c') },
      ],
    });
    expect(app.state).to.equal('RUNNING');
    await app.stop();
    expect(app.state).to.equal('STOPPED');
    expect(log).to.deep.equal([
      'register a',
      'register b',
      'register c',
      'start a',
      'start b',
      'start c',
      'stop c',
      'stop b',
      'stop a',
    ]);
  });

  it('rejects a dependency that is missing or listed later', async () => {
    const log: string[] = [];
    let err = await testApp({ plugins: [{ plugin: recorder(log, 'b', { dependsOn: ['a'] }) }] }).catch(
      (e: Error) => e,
    );
    expect((err as Error).message).to.equal('plugin "b" depends on "a", which is not in the plugins list');
    err = await testApp({
      plugins: [{ plugin: recorder(log, 'b', { dependsOn: ['a'] }) }, { plugin: recorder(log, 'a') }],
    }).catch((e: Error) => e);
    expect((err as Error).message).to.equal('plugin "b" depends on "a", which must be listed before it');
    expect(log).to.deep.equal([]);
  });

  it('stops the server with a message naming a plugin that throws at start, stopping those started', async () => {
    const log: string[] = [];
    const err = await testApp({
      plugins: [
        { plugin: recorder(log, 'a') },
        {
          plugin: recorder(log, 'broken', {
            start: () => {
              throw new Error('no database');
            },
          }),
        },
        { plugin: recorder(log, 'c') },
      ],
    }).catch((e: Error) => e);
    expect((err as Error).message).to.equal('plugin "broken" failed to start: no database');
    expect(log).to.deep.equal(['register a', 'register broken', 'register c', 'start a', 'stop a']);
  });

  it('passes options and refuses routes after start', async () => {
    let seen: unknown;
    let captured: Parameters<JunctionPlugin['register']>[0] | undefined;
    const app = await testApp({
      plugins: [
        {
          plugin: {
            name: 'opts',
            register(a, options) {
              seen = options;
              captured = a;
            },
          },
          options: { level: 3 },
        },
      ],
    });
    expect(seen).to.deep.equal({ level: 3 });
    expect(() => captured!.route({ method: 'GET', url: '/late', handler: async () => ({}) })).to.throw(
      'routes can only be added while plugins register',
    );
    await app.stop();
  });

  it('loads a custom plugin from a path that adds a route and uses storage', async () => {
    const app = await testApp({
      config: {
        plugins: [{ path: join(repoRoot, 'examples/plugins/greeting.js'), options: { greeting: 'Welcome' } }],
      },
    });
    try {
      const first = await app.inject('/greeting?name=Ada');
      expect(first.statusCode).to.equal(200);
      expect(first.json()).to.deep.equal({ message: 'Welcome, Ada!', count: 1 });
      const second = await app.inject('/greeting');
      expect(second.json()).to.deep.equal({ message: 'Welcome, world!', count: 2 });
      const openapi = (await app.inject('/openapi.json')).json();
      expect(openapi.paths).to.have.property('/greeting');
    } finally {
      await app.stop();
    }
  });

  it('loads the built-in plugins by name', async () => {
    const password = await hashPassword('secret');
    const app = await testApp({
      config: {
        plugins: [{ name: 'auth' }, { name: 'alias' }, { name: 'flux' }, { name: 'tracker' }],
        users: [{ username: 'ada', password, groups: [] }],
      },
    });
    expect(app.state).to.equal('RUNNING');
    await app.stop();
  });

  it('explains an unknown built-in, a missing file and a module that is not a plugin', async () => {
    const unknown = await testApp({ config: { plugins: [{ name: 'mailer' }] } }).catch((e: Error) => e);
    expect((unknown as Error).message).to.match(/^plugins\[0\]: no built-in plugin named "mailer"/);
    const missing = await testApp({ config: { plugins: [{ path: '/nowhere/plugin.js' }] } }).catch(
      (e: Error) => e,
    );
    expect((missing as Error).message).to.equal('plugins[0]: plugin file /nowhere/plugin.js does not exist');
    const file = join(tempDir(), 'not-a-plugin.js');
    writeFileSync(file, 'export const x = 1;\n');
    const shape = await testApp({ config: { plugins: [{ path: file }] } }).catch((e: Error) => e);
    expect((shape as Error).message).to.equal(
      `plugin ${file}: the module has no default export of a plugin object`,
    );
    const bad = join(tempDir(), 'bad.js');
    writeFileSync(bad, 'export default { name: "bad" };\n');
    const noRegister = await testApp({ config: { plugins: [{ path: bad }] } }).catch((e: Error) => e);
    expect((noRegister as Error).message).to.equal(`plugin ${bad}: "register" must be a function`);
  });

  it('resolves core services from the tsyringe container', async () => {
    const app = await testApp();
    const { Tokens } = await import('../../core/tokens.js');
    expect(app.container.resolve(Tokens.Storage)).to.equal(app.storage);
    expect(app.container.resolve(Tokens.Config)).to.equal(app.config);
    expect(app.container.resolve(Tokens.ServiceRegistry)).to.equal(app.services);
    await app.stop();
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigLoadError, loadConfig, type LoadOptions } from '../../core/config/load.js';
import { tempDir } from '../helpers.js';

function configDir(yaml: string): { dir: string; file: string } {
  const dir = tempDir();
  mkdirSync(join(dir, 'services'));
  const file = join(dir, 'config.yaml');
  writeFileSync(file, yaml);
  return { dir, file };
}

function problems(yaml: string, options: Partial<LoadOptions> = {}): string[] {
  const { file } = configDir(yaml);
  try {
    loadConfig({ file, env: {}, ...options });
  } catch (err) {
    expect(err).to.be.instanceOf(ConfigLoadError);
    return (err as ConfigLoadError).problems.map((p) => p.replace(file, 'config.yaml'));
  }
  throw new Error('expected the configuration to be rejected');
}

describe('core/config', () => {
  it('applies the defaults of CONTRACT §2', () => {
    const { dir, file } = configDir('');
    const { config } = loadConfig({ file, env: {} });
    expect(config.server).to.include({ host: '127.0.0.1', port: 8080, bodyLimit: 1048576, timezone: 'UTC' });
    expect(config.dataDir).to.equal(join(dir, 'data'));
    expect(config.servicesDir).to.equal(join(dir, 'services'));
    expect(config.sandbox).to.include({ memoryLimitMb: 64, timeoutMs: 5000 });
    expect(config.sandbox.threads).to.be.a('number').greaterThan(0);
    expect(config.plugins).to.deep.equal([
      { name: 'auth' },
      { name: 'alias' },
      { name: 'flux' },
      { name: 'tracker' },
    ]);
    expect(config.oauth).to.include({
      'client-id': 'junction',
      'client-secret': 'junction',
      'legacy-clients': true,
      'access-token-ttl': 3600,
      'refresh-token-ttl': 43200,
    });
    expect(config.users).to.deep.equal([]);
    expect(config.flux['require-auth']).to.equal(false);
    expect(config.tracker.retentionDays).to.equal(30);
  });

  it('reports a YAML syntax error with its line', () => {
    expect(problems('server:\n  port: [8080\n'))
      .to.have.length(1)
      .and.to.satisfy((p: string[]) =>
        /^config\.yaml: YAML syntax error at line \d+, column \d+: /.test(p[0]!),
      );
  });

  it('reports an unknown key with its path', () => {
    expect(problems('server:\n  prot: 8080\n')).to.deep.equal(['config.yaml: server.prot: unknown key']);
    expect(problems('colour: blue\n')).to.deep.equal(['config.yaml: colour: unknown key']);
  });

  it('reports a wrong type with its path, one line per problem', () => {
    expect(
      problems('server:\n  port: eighty\n  bodyLimit: true\nflux:\n  require-auth: "yes"\n'),
    ).to.deep.equal([
      'config.yaml: server.port: must be an integer',
      'config.yaml: server.bodyLimit: must be an integer',
      'config.yaml: flux.require-auth: must be a boolean',
    ]);
    expect(problems('users:\n  - username: bob\n')).to.deep.equal([
      'config.yaml: users[0].password: missing required key',
    ]);
  });

  it('reports a top level that is not a mapping', () => {
    expect(problems('- a\n- b\n')).to.deep.equal(['config.yaml: the top level must be a mapping of keys']);
  });

  it('reports a missing services folder', () => {
    const p = problems('servicesDir: ./nowhere\n');
    expect(p).to.have.length(1);
    expect(p[0]).to.match(/^config\.yaml: servicesDir: folder .*nowhere does not exist$/);
  });

  it('checks plugin entries, users and the time zone', () => {
    expect(problems('plugins:\n  - name: auth\n    path: ./x.js\n')).to.deep.equal([
      'config.yaml: plugins[0]: give exactly one of "name" (a built-in) or "path" (a custom plugin)',
    ]);
    expect(problems('plugins:\n  - name: auth\n  - name: auth\n')).to.deep.equal([
      'config.yaml: plugins[1].name: plugin "auth" is listed twice',
    ]);
    expect(problems('users:\n  - { username: bob, password: secret }\n')).to.deep.equal([
      'config.yaml: users[0].password: must be a hash printed by `junction hash-password`',
    ]);
    expect(problems('server:\n  timezone: Mars/Olympus\n')).to.deep.equal([
      'config.yaml: server.timezone: unknown time zone "Mars/Olympus"',
    ]);
  });

  it('caps token lifetimes with a warning', () => {
    const { file } = configDir('oauth:\n  access-token-ttl: 7200\n');
    const loaded = loadConfig({ file, env: {} });
    expect(loaded.config.oauth['access-token-ttl']).to.equal(3600);
    expect(loaded.warnings).to.deep.equal(['oauth.access-token-ttl capped at 3600 seconds']);
  });

  it('applies JUNCTION_<PATH> environment overrides with their types', () => {
    const { file } = configDir('server:\n  port: 8080\n');
    const { config } = loadConfig({
      file,
      env: {
        JUNCTION_SERVER_PORT: '9090',
        JUNCTION_SERVER_BODY_LIMIT: '2048',
        JUNCTION_SANDBOX_MEMORYLIMITMB: '32',
        JUNCTION_OAUTH_CLIENT_ID: 'acme',
        JUNCTION_OAUTH_LEGACY_CLIENTS: 'false',
        JUNCTION_FLUX_REQUIRE_AUTH: 'true',
        JUNCTION_PLUGINS: '[{name: auth}]',
        PATH: '/usr/bin',
      },
    });
    expect(config.server.port).to.equal(9090);
    expect(config.server.bodyLimit).to.equal(2048);
    expect(config.sandbox.memoryLimitMb).to.equal(32);
    expect(config.oauth['client-id']).to.equal('acme');
    expect(config.oauth['legacy-clients']).to.equal(false);
    expect(config.flux['require-auth']).to.equal(true);
    expect(config.plugins).to.deep.equal([{ name: 'auth' }]);
  });

  it('names the variable of a bad or unknown environment override', () => {
    expect(problems('', { env: { JUNCTION_SERVER_PORT: 'abc' } })).to.deep.equal([
      'config.yaml: server.port: must be an integer (set by JUNCTION_SERVER_PORT)',
    ]);
    expect(problems('', { env: { JUNCTION_SERVER_PROT: '1' } })).to.deep.equal([
      'JUNCTION_SERVER_PROT: no configuration key of that name',
    ]);
  });

  it('lets command-line flags win over file and environment', () => {
    const { file } = configDir('server:\n  port: 8080\n');
    const cwd = tempDir();
    mkdirSync(join(cwd, 'svc'));
    const { config } = loadConfig({
      file,
      cwd,
      env: { JUNCTION_SERVER_PORT: '9090' },
      flags: { port: 7070, host: '0.0.0.0', dataDir: 'd', servicesDir: 'svc' },
    });
    expect(config.server.port).to.equal(7070);
    expect(config.server.host).to.equal('0.0.0.0');
    expect(config.dataDir).to.equal(join(cwd, 'd'));
    expect(config.servicesDir).to.equal(join(cwd, 'svc'));
  });

  it('resolves relative paths against the config file folder', () => {
    const { dir, file } = configDir('dataDir: ./state\nplugins:\n  - path: ./plugins/mine.js\n');
    const { config } = loadConfig({ file, env: {}, cwd: '/' });
    expect(config.dataDir).to.equal(join(dir, 'state'));
    expect(config.plugins[0]!.path).to.equal(join(dir, 'plugins', 'mine.js'));
  });

  it('reports an unreadable file', () => {
    expect(() => loadConfig({ file: '/nonexistent/config.yaml', env: {} })).to.throw(
      ConfigLoadError,
      '/nonexistent/config.yaml: cannot read the file (ENOENT)',
    );
  });
});

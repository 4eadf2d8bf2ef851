import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { verifyPassword } from '../../core/password.js';
import { runCli, startChildServer, writeConfig } from '../child-server.js';
import { tempDir } from '../helpers.js';

const slowPlugin = fileURLToPath(new URL('../fixtures/slow-plugin.js', import.meta.url));

function serverDir(extra = ''): { dir: string; config: string } {
  const dir = tempDir();
  mkdirSync(join(dir, 'services'));
  const config = writeConfig(
    dir,
    `server:\n  port: 0\n  logLevel: warn\nplugins:\n  - path: ${slowPlugin}\n    options: { ms: 400 }\n${extra}`,
  );
  return { dir, config };
}

describe('junction CLI', function () {
  this.timeout(30000);

  it('hash-password prints a hash that verifies', async () => {
    const { code, stdout } = await runCli(['hash-password'], 'correct horse\n');
    expect(code).to.equal(0);
    const hash = stdout.trim();
    expect(hash).to.match(/^scrypt\$N=16384,r=8,p=1\$[\w-]+\$[\w-]+$/);
    expect(await verifyPassword('correct horse', hash)).to.equal(true);
    expect(await verifyPassword('wrong horse', hash)).to.equal(false);
  });

  it('check and serve exit 1 with one line per configuration problem', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, 'server:\n  port: high\n  colour: red\nservicesDir: ./missing\n');
    const check = await runCli(['check', '--config', config]);
    expect(check.code).to.equal(1);
    expect(check.stderr.trim().split('\n')).to.deep.equal([
      `junction: ${config}: server.colour: unknown key`,
      `junction: ${config}: server.port: must be an integer`,
    ]);
    const serve = await runCli(['serve', '--config', config]);
    expect(serve.code).to.equal(1);
    expect(serve.stderr).to.contain('server.colour: unknown key');
  });

  it('check passes on a valid configuration', async () => {
    const { config } = serverDir();
    const check = await runCli(['check', '--config', config]);
    expect(check.stderr).to.equal('');
    expect(check.code).to.equal(0);
  });

  it('check has no side effects: it creates no first administrator', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'services'));
    const config = writeConfig(dir, 'server:\n  logLevel: silent\nplugins:\n  - name: auth\nusers: []\n');
    const check = await runCli(['check', '--config', config]);
    expect(check.code).to.equal(0);
    expect(check.stdout).to.equal('configuration, packages and workflows are valid\n');
  });

  it('rejects unknown commands and bad flags', async () => {
    expect((await runCli(['frobnicate'])).code).to.equal(2);
    const bad = await runCli(['serve', '--port', 'x']);
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.contain('--port must be an integer');
  });

  it('serve applies flags over the file and shuts down gracefully on SIGTERM', async () => {
    const { config } = serverDir();
    const dataDir = join(tempDir(), 'elsewhere');
    const server = await startChildServer([
      'serve',
      '--config',
      config,
      '--data-dir',
      dataDir,
      '--host',
      '127.0.0.1',
    ]);
    const health = await fetch(`${server.address}/health`);
    expect(await health.json()).to.deep.equal({ status: 'ok', storage: 'open' });

    // A request in flight when the signal arrives still gets its answer.
    const inFlight = fetch(`${server.address}/slow`).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    server.process.kill('SIGTERM');
    expect(await inFlight).to.deep.equal({ status: 200, body: { done: true } });
    expect(await server.exited).to.equal(0);
    // Nothing listens any more.
    const after = await fetch(`${server.address}/health`).catch((e: Error) => e);
    expect(after).to.be.instanceOf(Error);
  });

  it('stops with a message naming a plugin that fails to start', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'services'));
    const plugin = join(dir, 'broken.js');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      plugin,
      'export default { name: "broken", register() {}, start() { throw new Error("cannot reach the mail server"); } };\n',
    );
    const config = writeConfig(
      dir,
      `server:\n  port: 0\n  logLevel: silent\nplugins:\n  - path: ${plugin}\n`,
    );
    const result = await runCli(['serve', '--config', config]);
    expect(result.code, `signal ${result.signal}, stderr: ${result.stderr}`).to.equal(1);
    expect(result.stderr).to.contain('plugin "broken" failed to start: cannot reach the mail server');
  });
});

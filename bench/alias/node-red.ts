import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { QUERY, type Target } from './targets.js';

const VERSION = '4.1';

/**
 * Installs Node-RED 4.1.x into `dir` with npm (not a project dependency). Returns the path of
 * its `red.js`, or an error message.
 */
export function installNodeRed(dir: string): { red: string } | { error: string } {
  const result = spawnSync(
    'npm',
    ['install', '--prefix', dir, `node-red@${VERSION}`, '--no-audit', '--no-fund', '--loglevel=error'],
    { encoding: 'utf8', timeout: 300_000 },
  );
  const red = join(dir, 'node_modules', 'node-red', 'red.js');
  if (result.status !== 0 || !existsSync(red)) {
    const why = result.error?.message ?? (result.stderr || result.stdout || `exit ${result.status}`).trim();
    return { error: why.split('\n').slice(-5).join('\n') };
  }
  return { red };
}

/** http in (GET /echo) → function (payload = query) → http response, the editor and admin API off. */
export async function startNodeRed(red: string, dir: string): Promise<Target> {
  const userDir = join(dir, 'user');
  mkdirSync(userDir, { recursive: true });
  const port = await freePort();
  const flows = [
    { id: 'bench-tab', type: 'tab', label: 'bench' },
    {
      id: 'bench-in',
      type: 'http in',
      z: 'bench-tab',
      url: '/echo',
      method: 'get',
      upload: false,
      wires: [['bench-fn']],
    },
    {
      id: 'bench-fn',
      type: 'function',
      z: 'bench-tab',
      name: 'echo',
      func: 'msg.payload = msg.req.query;\nreturn msg;',
      outputs: 1,
      wires: [['bench-out']],
    },
    { id: 'bench-out', type: 'http response', z: 'bench-tab', statusCode: '', headers: {}, wires: [] },
  ];
  writeFileSync(join(userDir, 'flows.json'), JSON.stringify(flows));
  const settings = join(dir, 'settings.cjs');
  writeFileSync(
    settings,
    `module.exports = ${JSON.stringify({
      uiHost: '127.0.0.1',
      uiPort: port,
      userDir,
      flowFile: 'flows.json',
      httpAdminRoot: false,
      credentialSecret: false,
      logging: { console: { level: 'warn', metrics: false, audit: false } },
    })};\n`,
  );
  const child = spawn(process.execPath, [red, '--settings', settings, '--userDir', userDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = `http://127.0.0.1:${port}/echo${QUERY}`;
  try {
    await waitUntilAnswering(url, child, 60_000);
  } catch (err) {
    await stop(child);
    throw new Error(`${(err as Error).message}\n${stderr.trim()}`);
  }
  return { url, stop: () => stop(child) };
}

async function waitUntilAnswering(url: string, child: ChildProcess, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Node-RED exited with ${child.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`Node-RED did not answer ${url} within ${ms} ms`);
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

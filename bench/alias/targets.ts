import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../../core/app.js';
import { defaultConfig } from '../../core/config/load.js';
import { createAliasPlugin } from '../../plugins/alias/index.js';
import { createTrackerPlugin } from '../../plugins/tracker/index.js';

/** A server under test: where to send the load, and how to stop it. */
export interface Target {
  url: string;
  stop(): Promise<void>;
}

/** The query every target answers: two parameters, echoed back. */
export const QUERY = '?name=junction&count=2';

/**
 * Junction as it ships, with the alias plugin and a package whose alias `GET /echo` calls a
 * service returning its input, in the worker pool's isolates. Per-request log lines are off
 * (level warn), as they are for the other two. `tracked`: the alias has `logToTracker` and the
 * tracker plugin writes a document per call to LevelDB.
 */
export async function startJunction(root: string, tracked = false): Promise<Target> {
  const servicesDir = join(root, tracked ? 'services-tracked' : 'services');
  mkdirSync(join(servicesDir, 'bench', 'code'), { recursive: true });
  writeFileSync(
    join(servicesDir, 'bench', 'package.yaml'),
    'name: bench\nversion: 1.0.0\naliases:\n  - url: /echo\n    service: Echo.echo\n    method: GET\n' +
      (tracked ? '    logToTracker: true\n' : ''),
  );
  writeFileSync(
    join(servicesDir, 'bench', 'code', 'Echo.js'),
    'export async function echo(input) {\n  return input;\n}\n',
  );
  const config = defaultConfig();
  config.dataDir = join(root, tracked ? 'data-tracked' : 'data');
  config.servicesDir = servicesDir;
  config.server.port = 0;
  config.server.host = '127.0.0.1';
  config.server.logLevel = 'warn';
  config.hotDeploy.enabled = false;
  if (process.env.BENCH_SANDBOX_THREADS) config.sandbox.threads = Number(process.env.BENCH_SANDBOX_THREADS);
  const plugins = [{ plugin: createAliasPlugin() }, ...(tracked ? [{ plugin: createTrackerPlugin() }] : [])];
  const app = await buildApp(config, { plugins });
  await app.start();
  return { url: `${app.address!}/api/echo${QUERY}`, stop: () => app.stop() };
}

/** The limit: a bare Fastify route answering the query in-process. */
export async function startFastify(): Promise<Target> {
  const app = Fastify({ logger: false });
  app.get('/echo', async (request) => request.query);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: `${address}/echo${QUERY}`, stop: () => app.close() };
}

export function tempRoot(): string {
  return mkdtempSync(join(tmpdir(), 'junction-bench-alias-'));
}

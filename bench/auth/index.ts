import 'reflect-metadata';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../core/app.js';
import { defaultConfig } from '../../core/config/load.js';
import { hashPassword } from '../../core/password.js';
import { createAuthPlugin } from '../../plugins/auth/index.js';
import { AUTH_VERIFIER, type BearerVerifier } from '../../plugins/auth/types.js';
import { benchPlugin } from './bench-plugin.js';
import type { LoadJob, LoadResult } from './load-worker.js';

/**
 * `npm run bench:auth`: refresh grants per second (N concurrent refresh chains, every grant a
 * durable LevelDB write) and bearer-checked requests per second beside the same no-op route
 * without the check. The server runs here on a real port with LevelDB in a temp folder; the load
 * comes from a child process. Targets: ≥ 5,000 refresh grants/s; the bearer check costs ≤ 10%.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CHAINS = Number(process.env.BENCH_CHAINS ?? 128);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/** `refresh` or `bearer` to run one half only (for profiling). */
const ONLY = process.env.BENCH_ONLY;

interface Measured extends LoadResult {
  /** Server CPU time (all its threads) per request, in microseconds. */
  cpuUsPerRequest: number;
  /** The part of it spent in the kernel (socket and fsync system calls). */
  systemUsPerRequest: number;
}

/** Microseconds per `verifier.require` (with a group rule), in a tight in-process loop. */
async function timeCheck(verifier: BearerVerifier, authorization: string): Promise<number> {
  const rule = { groups: ['bench'] };
  for (let i = 0; i < 50_000; i++) await verifier.require(authorization, rule);
  const n = 500_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await verifier.require(authorization, rule);
  return ((performance.now() - t0) * 1000) / n;
}

/** Runs one load job in a child process and measures the server's CPU time meanwhile. */
function load(job: LoadJob): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./load-worker.js', import.meta.url)));
    let cpu = process.cpuUsage();
    child.once('spawn', () => {
      cpu = process.cpuUsage();
      child.send(job);
    });
    child.once('message', (r: LoadResult) => {
      const used = process.cpuUsage(cpu);
      const n = Math.max(1, r.total);
      resolve({ ...r, cpuUsPerRequest: (used.user + used.system) / n, systemUsPerRequest: used.system / n });
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the load generator exited with code ${code}`)));
  });
}

const dir = mkdtempSync(join(tmpdir(), 'junction-bench-auth-'));
const config = defaultConfig();
config.dataDir = join(dir, 'data');
// An empty services folder of its own: the registry would take any other folder for a package.
config.servicesDir = join(dir, 'services');
mkdirSync(config.servicesDir);
config.plugins = [];
config.server = { ...config.server, host: '127.0.0.1', port: 0, logLevel: 'warn' };
config.users = [{ username: 'bench', password: await hashPassword('bench-password'), groups: ['bench'] }];
const app = await buildApp(config, {
  plugins: [{ plugin: createAuthPlugin({ announce: () => {} }) }, { plugin: benchPlugin }],
});
await app.start();
const origin = app.address!;

try {
  const grants = await Promise.all(
    Array.from({ length: CHAINS }, async () => {
      const res = await app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload:
          'grant_type=password&username=bench&password=bench-password&client_id=junction&client_secret=junction',
      });
      if (res.statusCode !== 200) throw new Error(`password grant answered ${res.statusCode}: ${res.body}`);
      return res.json() as { access_token: string; refresh_token: string };
    }),
  );
  const bearer = { authorization: `Bearer ${grants[0]!.access_token}` };
  const check = await app.inject({ url: '/bench/protected', headers: bearer });
  if (check.statusCode !== 200) throw new Error(`protected route answered ${check.statusCode}`);
  const checkUs = await timeCheck(app.container.resolve<BearerVerifier>(AUTH_VERIFIER), bearer.authorization);

  const cannon = (path: string, headers: Record<string, string>) =>
    load({ kind: 'cannon', url: `${origin}${path}`, headers, connections: CONNECTIONS, seconds: SECONDS });
  // Warm both routes up, then measure them alternately so drift on a shared machine hits both.
  if (ONLY !== 'refresh') {
    await cannon('/bench/open', {});
    await cannon('/bench/protected', bearer);
  }
  const open: Measured[] = [];
  const guarded: Measured[] = [];
  for (let round = 0; round < (ONLY === 'refresh' ? 0 : ROUNDS); round++) {
    open.push(await cannon('/bench/open', {}));
    guarded.push(await cannon('/bench/protected', bearer));
  }
  const refresh =
    ONLY === 'bearer'
      ? { perSecond: 0, p50Ms: 0, p99Ms: 0, errors: 0, total: 0, cpuUsPerRequest: 0, systemUsPerRequest: 0 }
      : await load({
          kind: 'refresh',
          origin,
          refreshTokens: grants.map((g) => g.refresh_token),
          seconds: SECONDS,
        });

  // Best of the rounds: on a shared machine the best run is the one least disturbed by others.
  // The server's CPU time per request is the steadier figure there: it does not depend on how
  // much of the machine the other processes leave us.
  const best = (rs: Measured[]) => Math.max(...rs.map((r) => r.perSecond));
  const leastCpu = (rs: Measured[]) => Math.min(...rs.map((r) => r.cpuUsPerRequest));
  const openRate = best(open);
  const guardedRate = best(guarded);
  const cost = (1 - guardedRate / openRate) * 100;
  const cpuCost = (leastCpu(guarded) / leastCpu(open) - 1) * 100;
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const verdict = (ok: boolean) => (ok ? 'meets' : 'MISSES');
  const table: string[][] = [['measure', 'result', 'target', '', 'detail']];
  if (ONLY !== 'bearer') {
    table.push([
      'refresh grants/s',
      fmt(refresh.perSecond),
      '>= 5,000/s',
      verdict(refresh.perSecond >= 5000),
      `p50 ${refresh.p50Ms.toFixed(1)} ms, p99 ${refresh.p99Ms.toFixed(1)} ms, errors ${refresh.errors}; ` +
        `server CPU ${fmt(refresh.cpuUsPerRequest)} us/grant (${fmt(refresh.systemUsPerRequest)} in the kernel)`,
    ]);
  }
  if (ONLY !== 'refresh') {
    const runs = (rs: Measured[]) =>
      rs.map((r) => `${fmt(r.perSecond)} (${r.cpuUsPerRequest.toFixed(1)} us)`).join(', ');
    table.push(
      ['unprotected no-op route req/s', fmt(openRate), '(reference)', '', `runs: ${runs(open)}`],
      [
        'bearer-protected no-op route req/s',
        fmt(guardedRate),
        '>= 90% of unprotected',
        verdict(cost <= 10),
        `runs: ${runs(guarded)}; errors ${guarded.reduce((s, r) => s + r.errors, 0)}`,
      ],
      [
        'bearer check cost, throughput',
        `${cost.toFixed(1)}%`,
        '<= 10%',
        verdict(cost <= 10),
        'best runs compared',
      ],
      [
        'bearer check cost, server CPU',
        `${cpuCost.toFixed(1)}%`,
        '<= 10%',
        verdict(cpuCost <= 10),
        'CPU us per request',
      ],
      [
        'bearer check alone',
        `${checkUs.toFixed(2)} us`,
        '',
        '',
        `${((checkUs / leastCpu(open)) * 100).toFixed(1)}% of an unprotected request's server CPU (in-process loop)`,
      ],
    );
  }
  console.log(
    `auth benchmark: ${SECONDS}s runs, ${CHAINS} refresh chains, ${CONNECTIONS} connections, ` +
      `${ROUNDS} rounds (LevelDB, durable writes)\n`,
  );
  const widths = [34, 10, 22, 6];
  for (const r of table) {
    console.log(
      r
        .map((cell, i) => (i === 1 ? cell.padStart(widths[i]!) : i < 4 ? cell.padEnd(widths[i]!) : cell))
        .join('  '),
    );
  }
  console.log(`\nstorage: ${JSON.stringify(app.storage.stats())}`);
} finally {
  await app.stop();
  rmSync(dir, { recursive: true, force: true });
}

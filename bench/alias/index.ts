/**
 * The alias benchmark (docs/performance.md): the same load — autocannon, 50 connections, 10 s,
 * GET with two query parameters — against Junction (alias → sandboxed echo service), a bare
 * Fastify route (the limit), and Node-RED 4.1.x (http in → function → http response), one after
 * the other on 127.0.0.1. Environment: BENCH_CONNECTIONS, BENCH_DURATION (seconds),
 * BENCH_SKIP_NODE_RED=1, BENCH_TRACKED=1 (adds a run of the alias with `logToTracker`).
 */
import 'reflect-metadata';
import { rmSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { runLoad, type LoadOptions, type LoadResult } from './load.js';
import { installNodeRed, startNodeRed } from './node-red.js';
import { startFastify, startJunction, tempRoot, type Target } from './targets.js';

const options: LoadOptions = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
  durationSec: Number(process.env.BENCH_DURATION ?? 10),
};
const WARMUP_SEC = 2;

interface Row {
  name: string;
  result: LoadResult | undefined;
  note?: string;
}

async function measure(name: string, start: () => Promise<Target>): Promise<Row> {
  process.stdout.write(`${name}: `);
  const target = await start();
  try {
    // Warm-up: compiled code, isolates, JIT; not counted.
    await runLoad(target.url, { connections: options.connections, durationSec: WARMUP_SEC });
    const result = await runLoad(target.url, options);
    console.log(`${Math.round(result.rps)} req/s`);
    return { name, result };
  } finally {
    await target.stop();
  }
}

function report(rows: Row[], tracked: Row | undefined): void {
  const pad = (s: string, n: number) => s.padEnd(n);
  const num = (n: number | undefined, digits = 0) => (n === undefined ? '-' : n.toFixed(digits));
  console.log('');
  console.log(
    `autocannon -c ${options.connections} -d ${options.durationSec}, GET with two query parameters, ` +
      `127.0.0.1, ${availableParallelism()} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}, ` +
      `load average ${loadavg()[0]!.toFixed(1)} at the end`,
  );
  console.log('');
  console.log(
    `${pad('target', 34)}${pad('req/s', 10)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('non-2xx', 9)}errors`,
  );
  for (const r of tracked ? [...rows, tracked] : rows) {
    console.log(
      `${pad(r.name, 34)}${pad(num(r.result?.rps), 10)}${pad(num(r.result?.p50, 1), 9)}` +
        `${pad(num(r.result?.p99, 1), 9)}${pad(num(r.result?.non2xx), 9)}${num(r.result?.errors)}` +
        (r.note ? `  ${r.note}` : ''),
    );
  }
  const [junction, fastify, nodeRed] = rows.map((r) => r.result);
  console.log('');
  if (junction && fastify) {
    const ratio = junction.rps / fastify.rps;
    console.log(
      `Junction / bare Fastify: ${(ratio * 100).toFixed(1)}%   (target ≥ 50%: ${ratio >= 0.5 ? 'met' : 'NOT met'})`,
    );
  }
  if (junction && nodeRed) {
    const ratio = junction.rps / nodeRed.rps;
    console.log(
      `Junction / Node-RED:     ${ratio.toFixed(2)}×   (target ≥ 3×: ${ratio >= 3 ? 'met' : 'NOT met'})`,
    );
  }
  if (junction && tracked?.result) {
    console.log(`Tracked / untracked:     ${((tracked.result.rps / junction.rps) * 100).toFixed(1)}%`);
  }
  if (junction) {
    console.log(
      `Junction p99:            ${junction.p99.toFixed(1)} ms (target ≤ 5 ms: ${junction.p99 <= 5 ? 'met' : 'NOT met'})`,
    );
  }
}

async function main(): Promise<void> {
  const root = tempRoot();
  const rows: Row[] = [];
  try {
    rows.push(await measure('Junction (alias → sandbox)', () => startJunction(root)));
    rows.push(await measure('bare Fastify (in-process)', startFastify));
    const tracked =
      process.env.BENCH_TRACKED === '1'
        ? await measure('Junction, alias with logToTracker', () => startJunction(root, true))
        : undefined;
    if (process.env.BENCH_SKIP_NODE_RED === '1') {
      rows.push({ name: 'Node-RED 4.1', result: undefined, note: 'skipped (BENCH_SKIP_NODE_RED=1)' });
    } else {
      const dir = join(root, 'node-red');
      console.log('installing Node-RED 4.1.x (npm install --prefix, a temporary folder)...');
      const installed = installNodeRed(dir);
      if ('error' in installed) {
        console.log(`NODE-RED COULD NOT BE INSTALLED; measuring the other two only.\n${installed.error}`);
        rows.push({ name: 'Node-RED 4.1', result: undefined, note: 'not installed (see above)' });
      } else {
        rows.push(await measure('Node-RED 4.1 (http in → function)', () => startNodeRed(installed.red, dir)));
      }
    }
    report(rows, tracked);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

/**
 * `npm run bench:flux [-- --quick]`: the workflow engine's throughput, memory per waiting context,
 * restart time and timer lateness, each printed beside its target (docs/performance.md, "Flux").
 * Everything runs on this machine's cores together with the load it generates.
 */
import { rmSync, mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { httpExecutions } from './http.js';
import { timerLateness } from './lateness.js';
import { printTable, type Row } from './report.js';
import { startBenchApp, writeBenchPackage } from './setup.js';
import { executions, transitionsById, transitionsByTag } from './throughput.js';
import { generateWaiting, heapPerWaiting, restartInProcess, restartToServing } from './waiting.js';

// The npm script runs plain `node`; the heap figures need a collectable heap.
setFlagsFromString('--expose-gc');
(globalThis as { gc?: () => void }).gc ??= runInNewContext('gc') as () => void;

const quick = process.argv.includes('--quick');
const SIZE = quick
  ? { executions: 5_000, rounds: 2, groups: 5, groupSize: 1_000, timers: 2_000, waiting: [10_000, 100_000] }
  : {
      executions: 20_000,
      rounds: 3,
      groups: 20,
      groupSize: 1_000,
      timers: 5_000,
      waiting: [100_000, 1_000_000],
    };
const CONCURRENCY = 256;

const roots: string[] = [];
const tempRoot = () => {
  const dir = mkdtempSync(join(tmpdir(), 'junction-bench-flux-'));
  roots.push(dir);
  return dir;
};
const log = (text: string) => process.stderr.write(`${text}\n`);

async function throughputAndLateness(rows: Row[]): Promise<void> {
  const bench = await startBenchApp(writeBenchPackage(tempRoot()));
  try {
    const { engine } = bench;
    log(`executions: ${SIZE.executions} at ${CONCURRENCY} in flight`);
    const started = await executions(engine, SIZE.executions, CONCURRENCY);
    rows.push({
      name: 'executions started/s',
      value: started.rate.perSecond,
      unit: '/s',
      target: 5_000,
      kind: 'min',
    });

    log(`transitions by contextId: ${SIZE.rounds} × ${SIZE.executions}`);
    const byId = await transitionsById(engine, started.ids, SIZE.rounds, CONCURRENCY);
    rows.push({
      name: 'transitions/s by contextId',
      value: byId.perSecond,
      unit: '/s',
      target: 20_000,
      kind: 'min',
    });

    const groups = Array.from({ length: SIZE.groups }, (_, g) => `group-${g}`);
    log(`tag fan-out: ${SIZE.groups} groups of ${SIZE.groupSize}`);
    await executions(engine, SIZE.groups * SIZE.groupSize, CONCURRENCY, (i) => [groups[i % SIZE.groups]!]);
    const rounds = Array.from({ length: SIZE.rounds }, () => groups).flat();
    const byTag = await transitionsByTag(engine, rounds, SIZE.groupSize, 4);
    rows.push({
      name: 'transitions/s by tag fan-out',
      value: byTag.perSecond,
      unit: '/s',
      target: 20_000,
      kind: 'min',
      note: `one event moves ${SIZE.groupSize} contexts`,
    });

    log(`timer lateness: ${SIZE.timers} timers`);
    const late = await timerLateness(bench.app, engine, SIZE.timers, 1_000);
    const note = `${late.timers} timers over 1 s; deadline → transition durable`;
    rows.push({ name: 'timer lateness p50', value: late.p50, unit: 'ms', target: 20, kind: 'max', note });
    rows.push({
      name: 'timer lateness p99',
      value: late.p99,
      unit: 'ms',
      target: 20,
      kind: 'max',
      note: `max ${late.max} ms`,
    });
  } finally {
    await bench.app.stop();
  }
}

async function overHttp(rows: Row[]): Promise<void> {
  const bench = await startBenchApp(writeBenchPackage(tempRoot()), { listen: true });
  try {
    log('HTTP executions: 64 connections');
    const http = await httpExecutions(bench.app.address!, quick ? 3 : 5, 64);
    rows.push({
      name: 'executions/s over HTTP',
      value: http.perSecond,
      unit: '/s',
      target: 5_000,
      kind: 'min',
      note: `latency p50 ${http.p50} ms, p99 ${http.p99} ms`,
    });
  } finally {
    await bench.app.stop();
  }
}

async function waitingContexts(rows: Row[]): Promise<void> {
  const folders = writeBenchPackage(tempRoot());
  // An hour out, spread over ten minutes: nothing fires while this runs.
  const from = Date.now() + 3600_000;
  let total = 0;
  for (const target of SIZE.waiting) {
    const bench = await startBenchApp(folders);
    try {
      log(`generating ${target - total} waiting contexts`);
      const ms = await generateWaiting(bench.engine, target - total, from, 600_000);
      log(`  ${Math.round(((target - total) * 1000) / ms)} contexts/s written`);
      total = target;
    } finally {
      await bench.app.stop();
    }
    const heap = await heapPerWaiting(folders, total);
    if (heap.held < total) throw new Error(`only ${heap.held} of ${total} timers were loaded`);
    rows.push({
      name: `heap per waiting context, ${total.toLocaleString('en-US')} timers`,
      value: heap.bytesPerContext,
      unit: 'B',
      target: 1024,
      kind: 'max',
      note: `all timers held in memory; engine start ${Math.round(heap.engineStartMs)} ms`,
    });
  }
  log('restart to serving');
  const inProcess = await restartInProcess(folders);
  const processMs = await restartToServing(folders);
  rows.push({
    name: `restart to serving, ${total.toLocaleString('en-US')} waiting`,
    value: inProcess / 1000,
    unit: 's',
    target: 10,
    kind: 'max',
    note: `all timers loaded; \`junction serve\` process (5-min horizon): ${(processMs / 1000).toFixed(1)} s`,
  });
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  const t0 = Date.now();
  log(`bench:flux${quick ? ' --quick' : ''} on ${availableParallelism()} cores`);
  try {
    await throughputAndLateness(rows);
    await overHttp(rows);
    await waitingContexts(rows);
  } finally {
    for (const dir of roots) rmSync(dir, { recursive: true, force: true });
  }
  console.log('');
  printTable(rows);
  console.log(
    `\n(${Math.round((Date.now() - t0) / 1000)} s; load generator and server share the same cores)`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

/**
 * Many waiting contexts: generated straight into the engine's context store in big batches (a
 * million through `execute` would take minutes), then measured on a fresh start on that data.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { BatchOp } from '../../core/storage/types.js';
import type { FluxEngineImpl } from '../../plugins/flux/engine/engine.js';
import type { ContextRecord } from '../../plugins/flux/store/record.js';
import { startBenchApp, type BenchFolders } from './setup.js';

const BATCH = 5_000;

/**
 * Adds `count` Timer contexts waiting in `wait` (WAITING_UNTIL) with deadlines spread over
 * [`from`, `from + spreadMs`), written as the engine writes them (record and index keys), from a
 * template context the engine itself created.
 */
export async function generateWaiting(
  engine: FluxEngineImpl,
  count: number,
  from: number,
  spreadMs: number,
): Promise<number> {
  const template = await engine.execute({ packageName: 'bench', fluxName: 'bench.Timer' });
  const stored = await engine.contexts.load(template.contextId);
  if (!stored || stored.record.status !== 'WAITING_UNTIL')
    throw new Error('the template context does not wait');
  // The template itself would fire in two seconds: cancel it so it does not skew anything.
  await engine.sendEvent({ event: 'cancel', contextId: template.contextId });
  const t0 = performance.now();
  // Several batches in flight: LevelDB writes on its own threads while the next one is built.
  const inFlight = new Set<Promise<void>>();
  for (let done = 0; done < count;) {
    const ops: BatchOp[] = [];
    const n = Math.min(BATCH, count - done);
    for (let i = 0; i < n; i++, done++) {
      const record: ContextRecord = {
        ...stored.record,
        id: engine.contexts.allocateId(),
        nextRun: from + Math.floor((done / count) * spreadMs),
      };
      ops.push(...engine.contexts.ops(record, undefined).ops);
    }
    const write = engine.contexts.contexts
      .batch(ops, { durable: false })
      .finally(() => inFlight.delete(write));
    inFlight.add(write);
    if (inFlight.size >= 4) await Promise.race(inFlight);
  }
  await Promise.all(inFlight);
  // One synced write orders every bulk write before it on disk.
  await engine.contexts.meta.put('bulk-load', count);
  return performance.now() - t0;
}

const gc = (): void => {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc');
  collect();
  collect();
};

/**
 * The engine holds in memory only the timers due within its horizon (5 minutes by default); the
 * measurements widen it past every generated deadline, so all of them are held: the worst case.
 */
export const ALL_TIMERS_HORIZON_MS = 3 * 3600_000;

/** Heap used by the engine for its waiting contexts: a start on the data, before and after. */
export async function heapPerWaiting(folders: BenchFolders, waiting: number) {
  const bench = await startBenchApp(folders, {
    engineStart: 'manual',
    timerHorizonMs: ALL_TIMERS_HORIZON_MS,
  });
  try {
    gc();
    const before = process.memoryUsage().heapUsed;
    const t0 = performance.now();
    await bench.startEngine();
    const startMs = performance.now() - t0;
    gc();
    const after = process.memoryUsage().heapUsed;
    const held = bench.engine.scheduler.size;
    return { bytesPerContext: (after - before) / waiting, held, engineStartMs: startMs };
  } finally {
    await bench.app.stop();
  }
}

/** An in-process restart: storage open, deploy, recovery with every timer loaded, listening. */
export async function restartInProcess(folders: BenchFolders): Promise<number> {
  const t0 = performance.now();
  const bench = await startBenchApp(folders, { listen: true, timerHorizonMs: ALL_TIMERS_HORIZON_MS });
  const ms = performance.now() - t0;
  await bench.app.stop();
  return ms;
}

const CLI = fileURLToPath(new URL('../../core/cli/main.js', import.meta.url));

/**
 * Process start to "Junction listening": `junction serve` on the data, as an operator would (with
 * the default horizon, so only timers due within 5 minutes are loaded).
 */
export async function restartToServing(folders: BenchFolders): Promise<number> {
  const configFile = join(folders.root, 'config.yaml');
  writeFileSync(
    configFile,
    [
      'server: { host: 127.0.0.1, port: 0, logLevel: error }',
      `dataDir: ${JSON.stringify(folders.dataDir)}`,
      `servicesDir: ${JSON.stringify(folders.servicesDir)}`,
      'hotDeploy: { enabled: false }',
      'sandbox: { threads: 1 }',
      'plugins: [{ name: flux }]',
      '',
    ].join('\n'),
  );
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--no-node-snapshot', CLI, 'serve', '--config', configFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  try {
    return await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Junction listening on')) resolve(performance.now() - t0);
      });
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.once('exit', (code) =>
        reject(new Error(`the server exited (${code}) before listening:\n${out}`)),
      );
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

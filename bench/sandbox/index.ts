/**
 * Sandboxed calls per second of a trivial echo service through the worker pool (warm), with 1 and
 * 64 concurrent callers, beside the same function called directly on the main thread.
 * Run: npm run build && npm run bench:sandbox [-- --seconds 3 --threads 2]
 */
import { loadavg } from 'node:os';
import { pino } from 'pino';
import { createSandbox } from '../../core/sandbox/index.js';
import type { PackageCode, Sandbox } from '../../core/sandbox/types.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number): number => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const seconds = option('seconds', 3);
const threads = option('threads', 2);

const ECHO = 'export async function echo(input) { return input; }';
const code: PackageCode = { key: 'bench@1', name: 'bench', modules: [{ path: 'Echo.js', source: ECHO }] };
const user = { username: 'bench', groups: [] };
const input = { orderId: 42, items: ['a', 'b'], total: 99.5 };

interface Rate {
  perSecond: number;
  /** CPU time of the whole process (main thread, workers, isolate threads) per call, µs. */
  cpuMicros: number;
}

/** Runs `callers` closed-loop callers of `call` for `ms`. */
async function measure(callers: number, ms: number, call: () => Promise<unknown>): Promise<Rate> {
  let count = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  const cpu = process.cpuUsage();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) {
        await call();
        count++;
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  return {
    perSecond: count / ((performance.now() - start) / 1000),
    cpuMicros: (used.user + used.system) / count,
  };
}

function createBenchSandbox(maxBatchSize?: number): Sandbox {
  return createSandbox({
    threads,
    memoryLimitMb: 64,
    timeoutMs: 5000,
    maxInvokeDepth: 8,
    httpTimeoutMs: 10000,
    httpMaxBytes: 1 << 20,
    host: {
      code: (key) => (key === code.key ? code : undefined),
      log: () => {},
      invoke: () => Promise.reject(new Error('not used')),
      call: () => Promise.reject(new Error('not used')),
    },
    logger: pino({ level: 'warn' }),
    ...(maxBatchSize === undefined ? {} : { maxBatchSize }),
  });
}

/** Warm calls per second through a fresh pool, for each number of callers. */
async function throughPool(callerCounts: number[], maxBatchSize?: number): Promise<Rate[]> {
  const sandbox = createBenchSandbox(maxBatchSize);
  const call = (): Promise<unknown> =>
    sandbox.call({ key: code.key, module: 'Echo.js', fn: 'echo', input, user, depth: 0 });
  await measure(64, 1000, call); // warm every worker's isolate and the JIT
  const rates: Rate[] = [];
  for (const callers of callerCounts) rates.push(await measure(callers, seconds * 1000, call));
  await sandbox.close();
  return rates;
}

async function main(): Promise<void> {
  // The same function on the main thread: no isolate, no thread, no copy.
  const echo = async (value: unknown): Promise<unknown> => value;
  const direct = (): Promise<unknown> => echo(input);
  const [pool1, pool64] = await throughPool([1, 64]);
  const [unbatched64] = await throughPool([64], 1);
  const rows: [string, Rate, Rate][] = [
    ['1 caller', pool1!, await measure(1, 1000, direct)],
    ['64 callers', pool64!, await measure(64, 1000, direct)],
    ['64, 1/task', unbatched64!, await measure(64, 1000, direct)],
  ];

  const fmt = (n: number): string => Math.round(n).toLocaleString('en-US').padStart(12);
  console.log(
    `sandbox echo service, ${threads} worker threads, ${seconds} s per phase (target: >= 30,000 calls/s at 64)`,
  );
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} (other processes skew these figures)`,
  );
  console.log(
    `${'callers'.padEnd(12)}${'pool calls/s'.padStart(14)}${'direct calls/s'.padStart(16)}` +
      `${'overhead us/call'.padStart(18)}${'pool CPU us/call'.padStart(18)}`,
  );
  for (const [label, pool, main] of rows) {
    const overhead = (1 / pool.perSecond - 1 / main.perSecond) * 1e6;
    console.log(
      `${label.padEnd(12)}${fmt(pool.perSecond)}  ${fmt(main.perSecond)}    ${overhead.toFixed(1).padStart(12)}` +
        `${pool.cpuMicros.toFixed(1).padStart(18)}`,
    );
  }
  console.log('overhead: wall time per call through the pool minus direct; CPU: all threads of the process');
  console.log("'64, 1/task': the same pool with micro-batching off (maxBatchSize 1: one task per call)");
}

await main();

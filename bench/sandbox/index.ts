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

async function main(): Promise<void> {
  const sandbox: Sandbox = createSandbox({
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
  });
  const viaPool = (): Promise<unknown> =>
    sandbox.call({ key: code.key, module: 'Echo.js', fn: 'echo', input, user, depth: 0 });
  // The same function on the main thread: no isolate, no thread, no copy.
  const echo = async (value: unknown): Promise<unknown> => value;
  const direct = (): Promise<unknown> => echo(input);

  await measure(64, 1000, viaPool); // warm every worker's isolate and the JIT
  const rows: [string, Rate, Rate][] = [];
  for (const callers of [1, 64]) {
    const pool = await measure(callers, seconds * 1000, viaPool);
    const main = await measure(callers, Math.min(seconds, 1) * 1000, direct);
    rows.push([`${callers} caller${callers > 1 ? 's' : ''}`, pool, main]);
  }
  await sandbox.close();

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
}

await main();

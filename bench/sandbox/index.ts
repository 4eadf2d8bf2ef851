/**
 * Sandboxed calls per second of a trivial echo service through the worker pool (warm), with 1 and
 * 64 concurrent callers, beside the same function called directly on the main thread.
 * Run: npm run build && npm run bench:sandbox [-- --seconds 3 --threads 2]
 */
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

/** Runs `callers` closed-loop callers of `call` for `ms`; returns calls per second. */
async function measure(callers: number, ms: number, call: () => Promise<unknown>): Promise<number> {
  let count = 0;
  const end = performance.now() + ms;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (performance.now() < end) {
        await call();
        count++;
      }
    }),
  );
  return count / ((performance.now() - start) / 1000);
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
  const rows: [string, number, number][] = [];
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
    `${'callers'.padEnd(12)}${'pool calls/s'.padStart(14)}${'direct calls/s'.padStart(16)}${'overhead us/call'.padStart(18)}`,
  );
  for (const [label, pool, main] of rows) {
    const overhead = (1 / pool - 1 / main) * 1e6;
    console.log(`${label.padEnd(12)}${fmt(pool)}  ${fmt(main)}    ${overhead.toFixed(1).padStart(12)}`);
  }
}

await main();

/**
 * The HTTP load generator, in a worker thread so it does not share the server's event loop:
 * autocannon posting `execute` requests. Answers `{perSecond, p50, p99, failed}`.
 */
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

export interface HttpJob {
  url: string;
  body: string;
  connections: number;
  seconds: number;
}

interface Aggregate {
  latency: { p50: number; p99: number };
  errors: number;
  non2xx: number;
  timeouts: number;
}

interface Autocannon {
  (options: Record<string, unknown>): Promise<{ totalCompletedRequests: number; duration: number }>;
  aggregateResult(results: unknown[], options: Record<string, unknown>): Aggregate;
}

// autocannon ships CommonJS without type declarations.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

async function run(job: HttpJob) {
  const options = {
    url: job.url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: job.body,
    connections: job.connections,
    duration: job.seconds,
  };
  // Off the main thread autocannon answers raw results; the rate comes from their totals.
  const raw = await autocannon(options);
  const r = autocannon.aggregateResult([raw], options);
  return {
    perSecond: raw.totalCompletedRequests / raw.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    failed: r.errors + r.non2xx + r.timeouts,
  };
}

run(workerData as HttpJob).then(
  (result) => parentPort!.postMessage({ result }),
  (err: unknown) => parentPort!.postMessage({ error: String(err) }),
);

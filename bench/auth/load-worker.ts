import autocannon from 'autocannon';
import { Pool } from 'undici';

/**
 * The load generator, in a child process so it shares neither the server's event loop nor its
 * CPU accounting (the server measures its own CPU time per request):
 * `cannon` drives one GET route with autocannon; `refresh` runs one refresh chain per refresh
 * token (each request presents the refresh token of the previous answer, as a client must).
 */
export type LoadJob =
  | { kind: 'cannon'; url: string; headers: Record<string, string>; connections: number; seconds: number }
  | { kind: 'refresh'; origin: string; refreshTokens: string[]; seconds: number };

export interface LoadResult {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  total: number;
}

async function cannon(job: Extract<LoadJob, { kind: 'cannon' }>): Promise<LoadResult> {
  const options = { url: job.url, headers: job.headers, connections: job.connections, duration: job.seconds };
  const r = await autocannon(options);
  return {
    perSecond: r.requests.total / r.duration,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    errors: r.errors + r.non2xx + r.timeouts,
    total: r.requests.total,
  };
}

async function refreshChains(job: Extract<LoadJob, { kind: 'refresh' }>): Promise<LoadResult> {
  const pool = new Pool(job.origin, { connections: job.refreshTokens.length, pipelining: 1 });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + job.seconds * 1000;
  const chain = async (first: string) => {
    let token = first;
    while (performance.now() < deadline) {
      const t0 = performance.now();
      const res = await pool.request({
        method: 'POST',
        path: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: `grant_type=refresh_token&refresh_token=${token}&client_id=junction&client_secret=junction`,
      });
      const body = (await res.body.json()) as { refresh_token?: string };
      if (res.statusCode !== 200 || !body.refresh_token) {
        if (errors++ === 0) console.error(`refresh chain broken: ${res.statusCode} ${JSON.stringify(body)}`);
        return;
      }
      token = body.refresh_token;
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(job.refreshTokens.map(chain));
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    perSecond: latencies.length / elapsed,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    errors,
    total: latencies.length,
  };
}

process.once('message', (job: LoadJob) => {
  void (job.kind === 'cannon' ? cannon(job) : refreshChains(job)).then((result) => {
    process.send!(result, () => process.disconnect());
  });
});

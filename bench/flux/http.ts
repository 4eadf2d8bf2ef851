/**
 * One figure over real HTTP: `POST /flux-api/{package}/execute` driven by autocannon against a
 * listening server in this process (so server and load generator share the cores).
 */
import { createRequire } from 'node:module';

interface AutocannonResult {
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  '2xx': number;
  duration: number;
}

type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

// autocannon ships CommonJS without type declarations.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export async function httpExecutions(address: string, seconds: number, connections: number) {
  const result = await autocannon({
    url: `${address}/flux-api/bench/execute`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ fluxName: 'bench.PingPong', tags: ['http'] }),
    connections,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`HTTP executions failed: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return { perSecond: result['2xx'] / result.duration, p50: result.latency.p50, p99: result.latency.p99 };
}

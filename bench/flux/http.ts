/**
 * One figure over real HTTP: `POST /flux-api/{package}/execute` against a listening server in
 * this process, driven by autocannon in a worker thread (the two share the machine's cores).
 */
import { Worker } from 'node:worker_threads';
import type { HttpJob } from './http-worker.js';

interface HttpResult {
  perSecond: number;
  p50: number;
  p99: number;
  failed: number;
}

export async function httpExecutions(address: string, seconds: number, connections: number) {
  const job: HttpJob = {
    url: `${address}/flux-api/bench/execute`,
    body: JSON.stringify({ fluxName: 'bench.PingPong', tags: ['http'] }),
    connections,
    seconds,
  };
  const worker = new Worker(new URL('./http-worker.js', import.meta.url), { workerData: job });
  const message = await new Promise<{ result?: HttpResult; error?: string }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  if (!message.result) throw new Error(`the HTTP load generator failed: ${message.error}`);
  if (message.result.failed > 0) {
    throw new Error(`HTTP executions failed: ${message.result.failed} errors or non-2xx answers`);
  }
  return message.result;
}

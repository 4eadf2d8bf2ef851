import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

/** What one autocannon run measured. */
export interface LoadResult {
  /** Mean requests per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  total: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  connections: number;
  durationSec: number;
}

const autocannonBin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/**
 * Runs autocannon against `url` in its own process, so the load generator never shares an event
 * loop with the server it measures; the same for every target.
 */
export function runLoad(url: string, options: LoadOptions): Promise<LoadResult> {
  const args = [
    autocannonBin,
    '-c',
    String(options.connections),
    '-d',
    String(options.durationSec),
    '-j',
    url,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`autocannon exited with ${code}: ${err.trim()}`));
      try {
        const r = JSON.parse(out) as {
          requests: { average: number; total: number };
          latency: { p50: number; p99: number };
          non2xx: number;
          errors: number;
        };
        resolve({
          rps: r.requests.average,
          p50: r.latency.p50,
          p99: r.latency.p99,
          total: r.requests.total,
          non2xx: r.non2xx,
          errors: r.errors,
        });
      } catch (e) {
        reject(new Error(`cannot read autocannon's output: ${(e as Error).message}`));
      }
    });
  });
}

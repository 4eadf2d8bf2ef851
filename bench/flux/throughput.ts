/**
 * Throughput of the engine in-process. Every figure counts only acknowledged work: `execute` and
 * `sendEvent` resolve once the change is durable (fsync'd through the group commit).
 */
import { performance } from 'node:perf_hooks';
import type { FluxEngineImpl } from '../../plugins/flux/engine/engine.js';

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function pool(count: number, concurrency: number, task: (i: number) => Promise<unknown>) {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export interface Rate {
  count: number;
  ms: number;
  perSecond: number;
}

const rate = (count: number, ms: number): Rate => ({ count, ms, perSecond: (count * 1000) / ms });

/** Starts `count` PingPong contexts (each waits in `ping`); resolves the rate and their ids. */
export async function executions(
  engine: FluxEngineImpl,
  count: number,
  concurrency: number,
  tags: (i: number) => string[] = () => [],
): Promise<{ rate: Rate; ids: number[] }> {
  const ids = new Array<number>(count);
  const t0 = performance.now();
  await pool(count, concurrency, async (i) => {
    const ref = await engine.execute({ packageName: 'bench', fluxName: 'bench.PingPong', tags: tags(i) });
    ids[i] = ref.contextId;
  });
  return { rate: rate(count, performance.now() - t0), ids };
}

/** Sends `rounds` × `ids.length` events by contextId; each moves one context (ping ↔ pong). */
export async function transitionsById(
  engine: FluxEngineImpl,
  ids: number[],
  rounds: number,
  concurrency: number,
): Promise<Rate> {
  const total = ids.length * rounds;
  let moved = 0;
  const t0 = performance.now();
  await pool(total, concurrency, async (i) => {
    const result = await engine.sendEvent({ event: 'next', contextId: ids[i % ids.length]! });
    moved += result.transitions.length;
  });
  const ms = performance.now() - t0;
  if (moved !== total) throw new Error(`expected ${total} transitions, got ${moved}`);
  return rate(moved, ms);
}

/** Sends one event per tag group, `concurrency` groups at a time; each moves the whole group. */
export async function transitionsByTag(
  engine: FluxEngineImpl,
  groups: string[],
  groupSize: number,
  concurrency: number,
): Promise<Rate> {
  let moved = 0;
  const t0 = performance.now();
  await pool(groups.length, concurrency, async (i) => {
    const result = await engine.sendEvent({ event: 'next', tags: [groups[i]!] });
    moved += result.transitions.length;
  });
  const ms = performance.now() - t0;
  if (moved !== groups.length * groupSize) {
    throw new Error(`expected ${groups.length * groupSize} transitions, got ${moved}`);
  }
  return rate(moved, ms);
}

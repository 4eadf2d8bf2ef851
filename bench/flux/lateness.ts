/**
 * Timer lateness: how long after its deadline a timer's transition is durable. Timer contexts are
 * started at a steady pace so their deadlines (two seconds later) are spread out like real load;
 * nothing else runs while they fire.
 */
import type { Junction } from '../../core/app.js';
import type { FluxEngineImpl } from '../../plugins/flux/engine/engine.js';
import { pool } from './throughput.js';

export interface Lateness {
  timers: number;
  p50: number;
  p99: number;
  max: number;
}

export async function timerLateness(
  app: Junction,
  engine: FluxEngineImpl,
  count: number,
  overMs: number,
): Promise<Lateness> {
  const deadlines = new Map<number, number>();
  const late: number[] = [];
  let resolveAll: () => void = () => {};
  const allFired = new Promise<void>((resolve) => (resolveAll = resolve));
  const off = app.events.on('flux.context.transitioned', (e) => {
    if (e.to !== 'fired') return;
    const deadline = deadlines.get(e.contextId);
    if (deadline === undefined) return;
    late.push(Date.now() - deadline);
    if (late.length === count) resolveAll();
  });
  try {
    const start = Date.now();
    await pool(count, 64, async (i) => {
      // Pace the starts: timer i is started no earlier than its share of `overMs`.
      const wait = start + (i / count) * overMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const ref = await engine.execute({ packageName: 'bench', fluxName: 'bench.Timer' });
      const context = await engine.getContext(ref.contextId);
      deadlines.set(ref.contextId, context!.nextRun);
    });
    const timeout = setTimeout(() => resolveAll(), 30_000);
    await allFired;
    clearTimeout(timeout);
  } finally {
    off();
  }
  if (late.length < count) throw new Error(`only ${late.length} of ${count} timers fired within 30 s`);
  late.sort((a, b) => a - b);
  const at = (q: number) => late[Math.min(late.length - 1, Math.floor(q * late.length))]!;
  return { timers: count, p50: at(0.5), p99: at(0.99), max: late[late.length - 1]! };
}

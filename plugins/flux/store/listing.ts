/**
 * `listContexts`: newest first, filtered by intersecting index scans. Each filter is a reverse
 * iteration over one index (ids descending); the intersection advances the iterators in lockstep,
 * so no record is read until it is known to match, and only the page's records are loaded.
 */
import type { ContextFilter } from '../engine/types.js';
import type { ContextStore } from './context-store.js';
import type { ContextRecord } from './record.js';

export async function listContexts(store: ContextStore, filter: ContextFilter): Promise<ContextRecord[]> {
  const sources: AsyncIterableIterator<number>[] = [];
  if (filter.fluxName !== undefined) sources.push(store.ids('flux', filter.fluxName));
  for (const tag of new Set(filter.tags ?? [])) sources.push(store.ids('tag', tag));
  if (filter.status !== undefined) sources.push(store.ids('status', filter.status));
  if (filter.currentState !== undefined) sources.push(store.ids('state', filter.currentState));
  if (filter.startState !== undefined) sources.push(store.ids('start', filter.startState));
  const ids = sources.length === 0 ? store.allIds() : intersect(sources);
  const skip = filter.page * filter.limit;
  const page: number[] = [];
  let seen = 0;
  try {
    for await (const id of ids) {
      if (seen++ < skip) continue;
      page.push(id);
      if (page.length >= filter.limit) break;
    }
  } finally {
    await Promise.all(sources.map((s) => s.return?.()));
  }
  return store.loadMany(page);
}

/** Ids present in every source; each source yields ids in descending order. */
export async function* intersect(sources: AsyncIterableIterator<number>[]): AsyncIterableIterator<number> {
  if (sources.length === 1) {
    yield* sources[0]!;
    return;
  }
  const current: number[] = [];
  for (const s of sources) {
    const r = await s.next();
    if (r.done) return;
    current.push(r.value);
  }
  for (;;) {
    const min = Math.min(...current);
    if (current.every((v) => v === min)) {
      yield min;
      for (let i = 0; i < sources.length; i++) {
        const r = await sources[i]!.next();
        if (r.done) return;
        current[i] = r.value;
      }
      continue;
    }
    // Descending order: every source above the smallest current id moves on towards it.
    for (let i = 0; i < sources.length; i++) {
      while (current[i]! > min) {
        const r = await sources[i]!.next();
        if (r.done) return;
        current[i] = r.value;
      }
    }
  }
}

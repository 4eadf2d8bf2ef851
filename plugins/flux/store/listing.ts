/**
 * `listContexts`: newest first, filtered by intersecting index scans. Each filter is a reverse
 * scan of one index (ids descending); the intersection moves the scans down together, seeking
 * over ids one of them lacks, so no record is read until it is known to match and only the page's
 * records are loaded.
 */
import type { ContextFilter } from '../engine/types.js';
import type { ContextStore } from './context-store.js';
import { IntersectionStream, iterate, type IdStream } from './id-stream.js';
import type { ContextRecord } from './record.js';

export async function listContexts(store: ContextStore, filter: ContextFilter): Promise<ContextRecord[]> {
  const streams: IdStream[] = [];
  if (filter.fluxName !== undefined) streams.push(store.stream('flux', filter.fluxName));
  for (const tag of new Set(filter.tags ?? [])) streams.push(store.stream('tag', tag));
  if (filter.status !== undefined) streams.push(store.stream('status', filter.status));
  if (filter.currentState !== undefined) streams.push(store.stream('state', filter.currentState));
  if (filter.startState !== undefined) streams.push(store.stream('start', filter.startState));
  const skip = filter.page * filter.limit;
  const page: number[] = [];
  let seen = 0;
  for await (const id of iterate(matching(store, streams))) {
    if (seen++ < skip) continue;
    page.push(id);
    if (page.length >= filter.limit) break;
  }
  return store.loadMany(page);
}

function matching(store: ContextStore, streams: IdStream[]): IdStream {
  if (streams.length === 0) return store.allStream();
  return streams.length === 1 ? streams[0]! : new IntersectionStream(streams);
}

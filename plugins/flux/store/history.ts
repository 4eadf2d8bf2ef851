/**
 * A context's execution history, kept out of its record once it grows: every HISTORY_CHUNK
 * entries are sealed into a key of their own (`history/<id>/<chunk>`), written once in the batch
 * that seals them, and only the newer entries stay in the record. A transition thus rewrites a
 * record of bounded size instead of one that grows with every step (up to HISTORY_KEPT entries,
 * some 60 KB); reading a context reads its sealed chunks with one `getMany`.
 */
import type { BatchOp, Store } from '../../../core/storage/types.js';
import type { HistoryEntry } from '../engine/types.js';
import { idKey } from './index-entries.js';
import { HISTORY_KEPT, type ContextRecord } from './record.js';

/** Entries per sealed chunk; HISTORY_KEPT is a multiple of it. */
export const HISTORY_CHUNK = 50;
const CHUNKS_KEPT = HISTORY_KEPT / HISTORY_CHUNK;

const chunkKey = (id: number, chunk: number) => `${idKey(id)}/${String(chunk).padStart(8, '0')}`;

/**
 * Moves full chunks of `record.executionHistory` into puts on `history` (appended to `ops`), and
 * deletes the chunk that falls out of the last HISTORY_KEPT entries. Changes `record`.
 */
export function sealHistory(record: ContextRecord, ops: BatchOp[], history: Store): void {
  while (record.executionHistory.length >= HISTORY_CHUNK) {
    const sealed = record.historySealed ?? 0;
    const chunk = sealed / HISTORY_CHUNK;
    ops.push({
      type: 'put',
      key: chunkKey(record.id, chunk),
      value: record.executionHistory.slice(0, HISTORY_CHUNK),
      store: history,
    });
    if (chunk >= CHUNKS_KEPT)
      ops.push({ type: 'del', key: chunkKey(record.id, chunk - CHUNKS_KEPT), store: history });
    record.executionHistory = record.executionHistory.slice(HISTORY_CHUNK);
    record.historySealed = sealed + HISTORY_CHUNK;
  }
}

/** The sealed history of each record (oldest first, within the last HISTORY_KEPT), by id. */
export async function sealedHistory(
  history: Store,
  records: ContextRecord[],
): Promise<Map<number, HistoryEntry[]>> {
  const keys: string[] = [];
  const owners: number[] = [];
  for (const r of records) {
    const chunks = (r.historySealed ?? 0) / HISTORY_CHUNK;
    for (let c = Math.max(0, chunks - CHUNKS_KEPT); c < chunks; c++) {
      keys.push(chunkKey(r.id, c));
      owners.push(r.id);
    }
  }
  const out = new Map<number, HistoryEntry[]>();
  if (keys.length === 0) return out;
  const values = await history.getMany<HistoryEntry[]>(keys);
  values.forEach((entries, i) => {
    const id = owners[i]!;
    const list = out.get(id) ?? [];
    if (entries) list.push(...entries);
    out.set(id, list);
  });
  return out;
}

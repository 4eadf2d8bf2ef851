/**
 * Contexts in LevelDB. One key per context (`contexts/<id>`), and secondary index keys written in
 * the same atomic batch as the record (`index/<kind>/<value>/<id>`): by fluxName, status, current
 * state, start state, tag, awaited event and next deadline. Ids are zero-padded so keys sort by
 * id and reverse iteration lists newest first; the deadline index sorts by time.
 *
 * A save writes the record and only the index keys that changed (a transition between two
 * waiting states typically changes one: the current state). The last saved form of recently
 * worked-on contexts stays in a bounded cache (`checkOut`/`forget`), so the next event for such a
 * context skips the LevelDB read and the JSON parse; writes still go to storage durably first.
 */
import type { BatchOp, Store } from '../../../core/storage/types.js';
import type { HistoryEntry } from '../engine/types.js';
import { sealedHistory, sealHistory } from './history.js';
import { KeyIdStream, type IdStream } from './id-stream.js';
import {
  deadlineKey,
  enc,
  idKey,
  indexedOf,
  indexOps,
  type Indexed,
  type IndexKind,
} from './index-entries.js';
import type { ContextRecord } from './record.js';

export { idKey, indexKey, type IndexKind } from './index-entries.js';

export interface LoadedContext {
  record: ContextRecord;
  /** What is indexed for it as stored (so a save writes only the difference). */
  indexed: Indexed;
}

/** Ids whose status keys one `getMany` looks up. */
const WAITING_LOOKUP_CHUNK = 2048;

/** Contexts kept in the cache of recently saved records (least recently used go first). */
export const DEFAULT_CACHED_CONTEXTS = 10_000;

export class ContextStore {
  readonly contexts: Store;
  readonly index: Store;
  readonly meta: Store;
  readonly history: Store;
  private counter = 0;
  /** Last saved form of recently worked-on contexts, oldest first (a Map keeps insertion order). */
  private readonly cache = new Map<number, LoadedContext>();

  constructor(
    root: Store,
    private readonly cacheSize = DEFAULT_CACHED_CONTEXTS,
  ) {
    if (!Number.isInteger(cacheSize) || cacheSize < 0) {
      throw new Error(`cachedContexts must be a non-negative integer (got ${cacheSize})`);
    }
    this.contexts = root.store('contexts');
    this.index = root.store('index');
    this.meta = root.store('meta');
    this.history = root.store('history');
  }

  /** Loads the id counter: the larger of the stored counter and the newest context key. */
  async open(): Promise<void> {
    const stored = (await this.meta.get<number>('counter')) ?? 0;
    let newest = 0;
    for await (const k of this.contexts.keys({ reverse: true, limit: 1 })) newest = Number(k);
    this.counter = Math.max(stored, newest);
  }

  /** A new id; written durably with the context that takes it (see `save`). */
  allocateId(): number {
    return ++this.counter;
  }

  /** The stored context (a fresh object the caller may keep). */
  async load(id: number): Promise<LoadedContext | undefined> {
    const record = await this.contexts.get<ContextRecord>(idKey(id));
    return record ? { record, indexed: indexedOf(record) } : undefined;
  }

  /**
   * The stored context for work on it inside its serializer, from the cache when there. The
   * caller changes the record in place and must either `save` it or `forget` it: a record left
   * changed but unsaved would otherwise be served to the next piece of work.
   */
  async checkOut(id: number): Promise<LoadedContext | undefined> {
    const cached = this.cache.get(id);
    if (cached) {
      this.cache.delete(id);
      return cached;
    }
    return this.load(id);
  }

  /** Returns a checked-out context whose record was not changed since it was loaded or saved. */
  checkIn(loaded: LoadedContext): void {
    this.remember(loaded);
  }

  /** Drops a context from the cache (its record may hold changes that were not saved). */
  forget(id: number): void {
    this.cache.delete(id);
  }

  async loadMany(ids: number[]): Promise<ContextRecord[]> {
    const records = await this.contexts.getMany<ContextRecord>(ids.map(idKey));
    return records.filter((r): r is ContextRecord => r !== undefined);
  }

  /**
   * The ops that store `record` (new when `previous` is undefined) with its index keys; `save`
   * writes them with `extra` in one durable batch.
   */
  ops(
    record: ContextRecord,
    previous: LoadedContext | undefined,
    ops: BatchOp[] = [],
  ): { ops: BatchOp[]; indexed: Indexed } {
    const indexed = indexedOf(record);
    sealHistory(record, ops, this.history);
    ops.push({ type: 'put', key: idKey(record.id), value: record, store: this.contexts });
    indexOps(ops, this.index, record.id, previous?.indexed, indexed);
    // No id counter is written: contexts are never deleted, so `open` finds the largest id used
    // from the newest context key.
    return { ops, indexed };
  }

  /** Writes `record` (and `extra`) in one durable batch; then caches it for the next work on it. */
  async save(
    record: ContextRecord,
    previous: LoadedContext | undefined,
    extra?: BatchOp[],
  ): Promise<LoadedContext> {
    const { ops, indexed } = this.ops(record, previous, extra ? [...extra] : []);
    const saved = { record, indexed };
    try {
      await this.contexts.batch(ops);
    } catch (err) {
      this.cache.delete(record.id);
      throw err;
    }
    this.remember(saved);
    return saved;
  }

  private remember(loaded: LoadedContext): void {
    const id = loaded.record.id;
    this.cache.delete(id);
    this.cache.set(id, loaded);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
  }

  /** The sealed execution history of each of `records`, by id (store/history.ts). */
  sealedHistory(records: ContextRecord[]): Promise<Map<number, HistoryEntry[]>> {
    return sealedHistory(this.history, records);
  }

  /** Ids in one index entry (e.g. status RUNNING), newest first unless `oldestFirst`. */
  async *ids(kind: IndexKind, value: string, oldestFirst = false): AsyncIterableIterator<number> {
    const prefix = `${kind}/${enc(value)}/`;
    for await (const k of this.index.keys({ gte: prefix, lt: `${prefix}\uffff`, reverse: !oldestFirst })) {
      yield Number(k.slice(prefix.length));
    }
  }

  /**
   * Those of `ids` that are waiting (WAITING or WAITING_UNTIL), in the same order: point lookups
   * of their status keys, so the cost follows `ids` and not the number of waiting contexts.
   */
  async waiting(ids: number[]): Promise<number[]> {
    const out: number[] = [];
    for (let from = 0; from < ids.length; from += WAITING_LOOKUP_CHUNK) {
      const chunk = ids.slice(from, from + WAITING_LOOKUP_CHUNK);
      const keys: string[] = [];
      for (const id of chunk) keys.push(`status/WAITING/${idKey(id)}`, `status/WAITING_UNTIL/${idKey(id)}`);
      const found = await this.index.getMany(keys);
      chunk.forEach((id, i) => {
        if (found[2 * i] !== undefined || found[2 * i + 1] !== undefined) out.push(id);
      });
    }
    return out;
  }

  /** A seekable stream of the ids in one index entry, newest first. */
  stream(kind: IndexKind, value: string): IdStream {
    return new KeyIdStream(this.index, `${kind}/${enc(value)}/`);
  }

  /** A seekable stream of every context id, newest first. */
  allStream(): IdStream {
    return new KeyIdStream(this.contexts, '');
  }

  /** `[deadline, id]` of waiting timers with `after < deadline <= until`, earliest first. */
  async *deadlines(after: number, until: number): AsyncIterableIterator<[number, number]> {
    const gt = after < 0 ? 'next/' : `next/${deadlineKey(after)}/\uffff`;
    for await (const k of this.index.keys({ gt, lte: `next/${deadlineKey(until)}/\uffff` })) {
      const [, at, id] = k.split('/');
      yield [Number(at), Number(id)];
    }
  }
}

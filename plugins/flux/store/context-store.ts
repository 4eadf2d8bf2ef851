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
import { KeyIdStream, type IdStream } from './id-stream.js';
import { isWaiting, type ContextRecord } from './record.js';

export type IndexKind = 'flux' | 'status' | 'state' | 'start' | 'tag' | 'await';

export interface LoadedContext {
  record: ContextRecord;
  /** The index keys currently stored for it (so a save writes only the difference). */
  indexKeys: string[];
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const idKey = (id: number) => pad(id, 16);
const deadlineKey = (ms: number) => pad(Math.max(0, Math.floor(ms)), 15);
const enc = (s: string) => encodeURIComponent(s);

export function indexKey(kind: IndexKind, value: string, id: number): string {
  return `${kind}/${enc(value)}/${idKey(id)}`;
}

export function indexKeysOf(r: ContextRecord): string[] {
  const keys = [
    indexKey('flux', r.fluxName, r.id),
    indexKey('status', r.status, r.id),
    indexKey('state', r.currentState, r.id),
    indexKey('start', r.startState, r.id),
    ...r.tags.map((t) => indexKey('tag', t, r.id)),
  ];
  if (isWaiting(r.status)) keys.push(...r.awaiting.map((e) => indexKey('await', e, r.id)));
  if (r.status === 'WAITING_UNTIL') keys.push(`next/${deadlineKey(r.nextRun)}/${idKey(r.id)}`);
  return keys;
}

/** Contexts kept in the cache of recently saved records (least recently used go first). */
export const DEFAULT_CACHED_CONTEXTS = 10_000;

export class ContextStore {
  readonly contexts: Store;
  readonly index: Store;
  readonly meta: Store;
  private counter = 0;
  /** Last saved form of recently worked-on contexts, oldest first (a Map keeps insertion order). */
  private readonly cache = new Map<number, LoadedContext>();

  constructor(
    root: Store,
    private readonly cacheSize = DEFAULT_CACHED_CONTEXTS,
  ) {
    this.contexts = root.store('contexts');
    this.index = root.store('index');
    this.meta = root.store('meta');
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
    return record ? { record, indexKeys: indexKeysOf(record) } : undefined;
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
  ): { ops: BatchOp[]; indexKeys: string[] } {
    const keys = indexKeysOf(record);
    const old = previous?.indexKeys ?? [];
    ops.push({ type: 'put', key: idKey(record.id), value: record, store: this.contexts });
    // A handful of keys each: a linear scan beats building sets.
    for (const k of old) if (!keys.includes(k)) ops.push({ type: 'del', key: k, store: this.index });
    for (const k of keys)
      if (!old.includes(k)) ops.push({ type: 'put', key: k, value: '', store: this.index });
    // No id counter is written: contexts are never deleted, so `open` finds the largest id used
    // from the newest context key.
    return { ops, indexKeys: keys };
  }

  /** Writes `record` (and `extra`) in one durable batch; then caches it for the next work on it. */
  async save(
    record: ContextRecord,
    previous: LoadedContext | undefined,
    extra?: BatchOp[],
  ): Promise<LoadedContext> {
    const { ops, indexKeys } = this.ops(record, previous, extra ? [...extra] : []);
    const saved = { record, indexKeys };
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

  /** Ids in one index entry (e.g. status RUNNING), newest first unless `oldestFirst`. */
  async *ids(kind: IndexKind, value: string, oldestFirst = false): AsyncIterableIterator<number> {
    const prefix = `${kind}/${enc(value)}/`;
    for await (const k of this.index.keys({ gte: prefix, lt: `${prefix}\uffff`, reverse: !oldestFirst })) {
      yield Number(k.slice(prefix.length));
    }
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

/**
 * Idempotency records for `execute` and `event` (the `Idempotency-Key` header). A request with a
 * key leaves, in the same batch as each change it makes, a marker naming the context and the
 * state it reached; the whole answer is recorded once the request is done. A retry answers the
 * recorded answer; a retry after a crash in between rebuilds it from the markers and acts only
 * where no marker shows it already acted. Records expire after a time-to-live (`sweep`).
 */
import type { BatchOp, Store } from '../../../core/storage/types.js';
import type { ContextRef, EventResult } from '../engine/types.js';

export interface ExecuteRecord {
  contextId: number;
  state: string;
  /** The context had come to rest: `state` is the first answer's. */
  final: boolean;
  /** Epoch ms of the write (for expiry). */
  at: number;
}

interface EventRecord {
  result: EventResult;
  at: number;
}

interface MarkerRecord extends ContextRef {
  at: number;
}

export class IdempotencyStore {
  constructor(private readonly store: Store) {}

  private key(scope: 'execute' | 'event', key: string, target?: string): string {
    return `${scope}/${encodeURIComponent(key)}${target === undefined ? '' : `/${target}`}`;
  }

  getExecute(key: string): Promise<ExecuteRecord | undefined> {
    return this.store.get<ExecuteRecord>(this.key('execute', key));
  }

  executeOp(key: string, value: ExecuteRecord): BatchOp {
    return { type: 'put', key: this.key('execute', key), value, store: this.store };
  }

  async getEvent(key: string): Promise<EventResult | undefined> {
    return (await this.store.get<EventRecord>(this.key('event', key)))?.result;
  }

  putEvent(key: string, result: EventResult, at: number): Promise<void> {
    return this.store.put(this.key('event', key), { result, at } satisfies EventRecord);
  }

  /** Marker of one context moved (`c/<id>`) or started by a trigger (`t/<package>/<fluxName>`). */
  markerOp(key: string, target: string, ref: ContextRef, at: number): BatchOp {
    const value: MarkerRecord = { contextId: ref.contextId, state: ref.state, at };
    return { type: 'put', key: this.key('event', key, target), value, store: this.store };
  }

  async markers(key: string): Promise<Map<string, ContextRef>> {
    const prefix = `${this.key('event', key)}/`;
    const found = new Map<string, ContextRef>();
    for await (const [k, v] of this.store.entries<MarkerRecord>({ gte: prefix, lt: `${prefix}\uffff` })) {
      found.set(k.slice(prefix.length), { contextId: v.contextId, state: v.state });
    }
    return found;
  }

  /** Deletes records written before `before` (epoch ms); resolves with how many. */
  async sweep(before: number): Promise<number> {
    let deleted = 0;
    let ops: BatchOp[] = [];
    for await (const [k, v] of this.store.entries<{ at?: number }>()) {
      if ((v.at ?? 0) >= before) continue;
      ops.push({ type: 'del', key: k });
      if (ops.length >= 1000) {
        await this.store.batch(ops, { durable: false });
        deleted += ops.length;
        ops = [];
      }
    }
    if (ops.length > 0) await this.store.batch(ops, { durable: false });
    return deleted + ops.length;
  }
}

/**
 * Idempotency records for `execute` and `event` (the `Idempotency-Key` header). A request with a
 * key leaves, in the same batch as each change it makes, a marker naming the context and the
 * state it reached; the whole answer is recorded once the request is done. A retry answers the
 * recorded answer; a retry after a crash in between rebuilds it from the markers and acts only
 * where no marker shows it already acted.
 */
import type { BatchOp, Store } from '../../../core/storage/types.js';
import type { ContextRef, EventResult } from '../engine/types.js';

export type IdempotencyScope = 'execute' | 'event';

export interface ExecuteRecord {
  contextId: number;
  state: string;
  /** The context had come to rest: `state` is the first answer's. */
  final: boolean;
}

export class IdempotencyStore {
  constructor(private readonly store: Store) {}

  private key(scope: IdempotencyScope, key: string, target?: string): string {
    return `${scope}/${encodeURIComponent(key)}${target === undefined ? '' : `/${target}`}`;
  }

  getExecute(key: string): Promise<ExecuteRecord | undefined> {
    return this.store.get<ExecuteRecord>(this.key('execute', key));
  }

  executeOp(key: string, value: ExecuteRecord): BatchOp {
    return { type: 'put', key: this.key('execute', key), value, store: this.store };
  }

  getEvent(key: string): Promise<EventResult | undefined> {
    return this.store.get<EventResult>(this.key('event', key));
  }

  putEvent(key: string, result: EventResult): Promise<void> {
    return this.store.put(this.key('event', key), result);
  }

  /** Marker of one context moved (`c/<id>`) or started by a trigger (`t/<package>/<fluxName>`). */
  markerOp(key: string, target: string, ref: ContextRef): BatchOp {
    return { type: 'put', key: this.key('event', key, target), value: ref, store: this.store };
  }

  async markers(key: string): Promise<Map<string, ContextRef>> {
    const prefix = `${this.key('event', key)}/`;
    const found = new Map<string, ContextRef>();
    for await (const [k, v] of this.store.entries<ContextRef>({ gte: prefix, lt: `${prefix}\uffff` })) {
      found.set(k.slice(prefix.length), v);
    }
    return found;
  }
}

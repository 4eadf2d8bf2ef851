/**
 * The secondary index entries of a context (`<kind>/<value>/<id>`, value `''`) and the ops that
 * move them when the context changes. What is indexed is kept as plain values (`Indexed`), so a
 * save compares values and builds key strings only for the entries that change: a transition
 * between two waiting states typically builds two (the old and the new current state).
 */
import type { BatchOp, Store } from '../../../core/storage/types.js';
import { isWaiting, type ContextRecord } from './record.js';

export type IndexKind = 'flux' | 'status' | 'state' | 'start' | 'tag' | 'await';

/** The indexed values of a context as stored. Arrays are never changed in place (only replaced). */
export interface Indexed {
  flux: string;
  status: string;
  state: string;
  start: string;
  tags: readonly string[];
  /** Awaited events while waiting, else none. */
  awaiting: readonly string[];
  /** The deadline while WAITING_UNTIL, else -1. */
  next: number;
}

const NONE: readonly string[] = [];

const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const idKey = (id: number) => pad(id, 16);
export const deadlineKey = (ms: number) => pad(Math.max(0, Math.floor(ms)), 15);

/** Encoded index values: names of workflows, states, tags and events repeat endlessly. */
const encoded = new Map<string, string>();
const ENCODED_KEPT = 10_000;
export function enc(value: string): string {
  let e = encoded.get(value);
  if (e === undefined) {
    e = encodeURIComponent(value);
    if (encoded.size >= ENCODED_KEPT) encoded.clear();
    encoded.set(value, e);
  }
  return e;
}

export function indexKey(kind: IndexKind, value: string, id: number): string {
  return `${kind}/${enc(value)}/${idKey(id)}`;
}

export function indexedOf(r: ContextRecord): Indexed {
  return {
    flux: r.fluxName,
    status: r.status,
    state: r.currentState,
    start: r.startState,
    tags: r.tags,
    awaiting: isWaiting(r.status) ? r.awaiting : NONE,
    next: r.status === 'WAITING_UNTIL' ? r.nextRun : -1,
  };
}

/**
 * Appends to `ops` the deletions and puts (in `index`) that turn the entries of `before` (none:
 * a new context) into those of `after`.
 */
export function indexOps(
  ops: BatchOp[],
  index: Store,
  id: number,
  before: Indexed | undefined,
  after: Indexed,
): void {
  const suffix = idKey(id);
  const del = (key: string) => ops.push({ type: 'del', key, store: index });
  const put = (key: string) => ops.push({ type: 'put', key, value: '', store: index });
  const one = (kind: IndexKind, old: string | undefined, now: string) => {
    if (old === now) return;
    if (old !== undefined) del(`${kind}/${enc(old)}/${suffix}`);
    put(`${kind}/${enc(now)}/${suffix}`);
  };
  const many = (kind: IndexKind, old: readonly string[], now: readonly string[]) => {
    if (old === now) return;
    for (const v of old) if (!now.includes(v)) del(`${kind}/${enc(v)}/${suffix}`);
    for (const v of now) if (!old.includes(v)) put(`${kind}/${enc(v)}/${suffix}`);
  };
  one('flux', before?.flux, after.flux);
  one('status', before?.status, after.status);
  one('state', before?.state, after.state);
  one('start', before?.start, after.start);
  many('tag', before?.tags ?? NONE, after.tags);
  many('await', before?.awaiting ?? NONE, after.awaiting);
  const oldNext = before?.next ?? -1;
  if (oldNext !== after.next) {
    if (oldNext >= 0) ops.push({ type: 'del', key: `next/${deadlineKey(oldNext)}/${suffix}`, store: index });
    if (after.next >= 0)
      ops.push({ type: 'put', key: `next/${deadlineKey(after.next)}/${suffix}`, value: '', store: index });
  }
}

/**
 * The stored form of a workflow context (one LevelDB value per context) and its conversion to the
 * SEED-SPEC 2.3 view.
 */
import { ANONYMOUS, type UserRef } from '../../../core/services/types.js';
import type { FluxDefinition, StateSpec } from '../definitions/types.js';
import type {
  FluxContextView,
  FluxStatus,
  HistoryEntry,
  ModelDescriptor,
  StateContext,
} from '../engine/types.js';

export interface TransitionRecord {
  /** `immediate`, `event`, `time` or `exception`. */
  kind: string;
  to: string;
  event?: string;
  at: number;
}

export interface StateRecord {
  name: string;
  /** The last input and output of the state's action. */
  input?: unknown;
  output?: unknown;
  /** Transitions taken out of this state, newest last (at most TRANSITIONS_KEPT). */
  transitions: TransitionRecord[];
}

/** The event that moved a context into its current state (`event` in expressions). */
export interface EventRecord {
  name: string;
  input: Record<string, unknown>;
}

export interface ContextRecord {
  id: number;
  packageName: string;
  fluxName: string;
  definitionVersion: string;
  startState: string;
  currentState: string;
  /**
   * RUNNING means "the action of `currentState` is about to run (or running) with these vars":
   * recovery re-runs it. The other statuses are at rest.
   */
  status: FluxStatus;
  /** Earliest pending deadline (WAITING_UNTIL), else 0. */
  nextRun: number;
  /** Index in the current state's transitions of the time transition due at `nextRun`. */
  nextTransition: number;
  /** Event names the current state waits for (WAITING / WAITING_UNTIL), `$else` included. */
  awaiting: string[];
  tags: string[];
  input: Record<string, unknown>;
  vars: Record<string, unknown>;
  event: EventRecord | null;
  user: UserRef;
  stateContexts: StateRecord[];
  /**
   * The newest steps, oldest first; older ones are sealed into chunks of their own
   * (store/history.ts) once there are HISTORY_CHUNK of them.
   */
  executionHistory: HistoryEntry[];
  /** How many steps were sealed into history chunks (a multiple of HISTORY_CHUNK; absent: 0). */
  historySealed?: number;
  error?: { message: string; type: string };
  createdAt: number;
  updatedAt: number;
}

export const HISTORY_KEPT = 1000;
export const TRANSITIONS_KEPT = 20;

export const FINISHED: ReadonlySet<FluxStatus> = new Set(['DONE', 'FAILED', 'TERMINATED']);
export const isWaiting = (s: FluxStatus) => s === 'WAITING' || s === 'WAITING_UNTIL';

/** A new context, RUNNING in its start state (its action not yet run). */
export function newContextRecord(
  id: number,
  def: FluxDefinition,
  start: StateSpec,
  request: { input?: Record<string, unknown>; tags?: string[]; user?: UserRef },
  extraVars: Record<string, unknown>,
  now: number,
): ContextRecord {
  const input = { ...(request.input ?? {}) };
  return {
    id,
    packageName: def.packageName,
    fluxName: def.fluxName,
    definitionVersion: def.version,
    startState: start.name,
    currentState: start.name,
    status: 'RUNNING',
    nextRun: 0,
    nextTransition: -1,
    awaiting: [],
    tags: [...new Set(request.tags ?? [])],
    input,
    vars: { ...input, ...extraVars },
    event: null,
    user: request.user ?? ANONYMOUS,
    stateContexts: [{ name: start.name, transitions: [] }],
    executionHistory: [{ fluxName: def.fluxName, stateName: start.name, stateIndex: start.index }],
    createdAt: now,
    updatedAt: now,
  };
}

/** A model descriptor (SEED-SPEC 2.4) listing the fields of `value` as `{name, type, value}`. */
export function descriptor(name: string, value: unknown): ModelDescriptor {
  const fields =
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value as Record<string, unknown>)
      : value === undefined
        ? []
        : [['value', value] as [string, unknown]];
  return {
    name,
    type: 'model',
    allowExtraProperties: true,
    modelProperties: fields.map(([n, v]) => ({ name: n, type: typeOf(v), value: v })),
  };
}

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/** The state context of `name` in `r`, created on first visit. */
export function stateRecord(r: ContextRecord, name: string): StateRecord {
  let s = r.stateContexts.find((c) => c.name === name);
  if (!s) {
    s = { name, transitions: [] };
    r.stateContexts.push(s);
  }
  return s;
}

export function stateContextView(record: ContextRecord, stateName: string): StateContext {
  const s = record.stateContexts.find((c) => c.name === stateName);
  return {
    name: stateName,
    input: descriptor(`${stateName}.input`, s?.input),
    output: descriptor(`${stateName}.output`, s?.output),
    transitionContexts: (s?.transitions ?? []).map((t) => ({ ...t })),
  };
}

/** The SEED-SPEC 2.3 view; `sealed`: the context's sealed history (store/history.ts). */
export function contextView(record: ContextRecord, sealed: HistoryEntry[] = []): FluxContextView {
  const history = [...sealed, ...record.executionHistory].slice(-HISTORY_KEPT);
  return {
    fluxName: record.fluxName,
    id: record.id,
    currentState: record.currentState,
    startState: record.startState,
    waiting: isWaiting(record.status),
    debugged: false,
    nextRun: record.nextRun,
    status: record.status,
    input: descriptor(`${record.fluxName}.input`, record.input),
    // The result of a workflow is its variables once it has ended.
    output: descriptor(`${record.fluxName}.output`, record.status === 'DONE' ? record.vars : undefined),
    tags: [...record.tags],
    stateContexts: record.stateContexts.map((s) => stateContextView(record, s.name)),
    executionHistory: history.map((h) => ({ ...h })),
    vars: record.vars,
    packageName: record.packageName,
    ...(record.error ? { error: { ...record.error } } : {}),
  };
}

/**
 * What the step runner needs to know about a state's transitions, worked out once per state of a
 * definition version instead of on every step (filters and sets on the hot path of every event
 * and every timer).
 */
import { ELSE_EVENT, EXCEPTION_EVENT, type StateSpec, type TransitionSpec } from '../definitions/types.js';

type EventTransition = Extract<TransitionSpec, { kind: 'event' }>;
type ImmediateTransition = Extract<TransitionSpec, { kind: 'immediate' }>;

export interface StatePlan {
  immediates: ImmediateTransition[];
  /** The conditions of `immediates` that have one, then the expressions of `at` transitions. */
  expressions: string[];
  /** How many of `expressions` are immediate conditions. */
  conditionCount: number;
  /** The state has time transitions (`after`, `at`, `cron`). */
  timed: boolean;
  /** No transition leaves the state (other than `$exception`): entering it ends the context. */
  final: boolean;
  /** Event names a context resting here waits for (`$else` and `$exception` excluded). */
  awaiting: readonly string[];
  /** Event transitions by event name, in definition order. */
  byEvent: ReadonlyMap<string, EventTransition[]>;
  /** Target of `$else`, if any. */
  elseTo: string | undefined;
  /** The `$exception` transition, if any. */
  exception: EventTransition | undefined;
}

const plans = new WeakMap<StateSpec, StatePlan>();

export function planOf(state: StateSpec): StatePlan {
  let plan = plans.get(state);
  if (!plan) {
    plan = makePlan(state);
    plans.set(state, plan);
  }
  return plan;
}

function makePlan(state: StateSpec): StatePlan {
  const immediates: ImmediateTransition[] = [];
  const conditions: string[] = [];
  const ats: string[] = [];
  const byEvent = new Map<string, EventTransition[]>();
  let timed = false;
  let elseTo: string | undefined;
  let exception: EventTransition | undefined;
  for (const t of state.transitions) {
    if (t.kind === 'immediate') {
      immediates.push(t);
      if (t.condition !== undefined) conditions.push(t.condition);
    } else if (t.kind === 'event') {
      if (t.event === EXCEPTION_EVENT) exception ??= t;
      else if (t.event === ELSE_EVENT) elseTo ??= t.to;
      const list = byEvent.get(t.event) ?? [];
      list.push(t);
      byEvent.set(t.event, list);
    } else {
      timed = true;
      if (t.kind === 'at') ats.push(t.expression);
    }
  }
  const awaiting = [...byEvent.keys()].filter((e) => e !== ELSE_EVENT && e !== EXCEPTION_EVENT);
  const listens = awaiting.length > 0 || elseTo !== undefined;
  return {
    immediates,
    expressions: [...conditions, ...ats],
    conditionCount: conditions.length,
    timed,
    final: immediates.length === 0 && !timed && !listens,
    awaiting,
    byEvent,
    elseTo,
    exception,
  };
}

/**
 * Runs a context from a state it has just entered (status RUNNING) until it rests: waiting,
 * done or failed. A step is: run the state's action in the sandbox, evaluate the conditions of its
 * immediate transitions (one sandbox call), then either take a transition or come to rest.
 *
 * Durability: before an action runs, the context is written durably as RUNNING in that state, so
 * after a crash recovery re-runs the action (at-least-once); the resting state is written in one
 * durable batch with its index keys. Nothing is reported or emitted before its batch commits.
 */
import type { Clock } from '../../../core/clock.js';
import type { JunctionEvents } from '../../../core/events.js';
import type { ServiceRegistry } from '../../../core/services/types.js';
import type { BatchOp } from '../../../core/storage/types.js';
import { EXCEPTION_EVENT, type FluxDefinition, type StateSpec } from '../definitions/types.js';
import type { ContextStore, LoadedContext } from '../store/context-store.js';
import {
  FINISHED,
  stateRecord,
  TRANSITIONS_KEPT,
  type ContextRecord,
  type EventRecord,
} from '../store/record.js';
import { actionInput } from './action-input.js';
import { earliestDeadline, StepError } from './deadlines.js';
import type { FluxMetrics } from './metrics.js';
import { planOf } from './state-plan.js';

const NO_VALUES: unknown[] = [];

/** A context being worked on, inside its serializer. */
export interface Work {
  /** What is stored now (undefined: a new context not yet written). */
  stored: LoadedContext | undefined;
  record: ContextRecord;
  def: FluxDefinition;
  /** Ops written with every batch of this piece of work (idempotency records). */
  extraOps?: (record: ContextRecord) => BatchOp[];
  /** Notifications to emit once the next batch has committed. */
  emits: (() => void)[];
  /** The record has changes not yet written. */
  dirty: boolean;
}

/** Errors of writing a context (storage), as opposed to errors of the workflow. */
const writeFailures = new WeakSet<object>();
const isWriteFailure = (err: unknown) => typeof err === 'object' && err !== null && writeFailures.has(err);

export interface StepRunnerDeps {
  services: ServiceRegistry;
  store: ContextStore;
  clock: Clock;
  events: JunctionEvents;
  metrics: FluxMetrics;
  /** IANA zone for cron transitions. */
  timezone: string;
  /** Transitions one run may take without coming to rest (guards against immediate loops). */
  maxSteps: number;
  /** A context now waits until `nextRun` (already durable). */
  onDeadline(id: number, nextRun: number): void;
}

export class StepRunner {
  constructor(private readonly deps: StepRunnerDeps) {}

  /** Runs `work.record` (RUNNING in its current state) until it rests, writing each step. */
  async run(work: Work): Promise<void> {
    let steps = 0;
    for (;;) {
      const state = this.state(work);
      let output: unknown;
      try {
        output = await this.runAction(work, state);
        const next = await this.choose(work, state, output);
        if (next === 'rest') return;
        if (++steps > this.deps.maxSteps) {
          throw new StepError(`more than ${this.deps.maxSteps} transitions without waiting`, 'FluxLoopError');
        }
        this.move(work, next, 'immediate');
      } catch (err) {
        // Storage failing is no error of the workflow's: the change is not made and the caller
        // gets the error; what is stored stays as it was (recovery resumes from it).
        if (isWriteFailure(err)) throw err;
        const handled = this.exception(work, state, err);
        if (!handled) {
          await this.persist(work);
          return;
        }
        if (++steps > this.deps.maxSteps) {
          this.finish(work, 'FAILED', {
            message: `more than ${this.deps.maxSteps} transitions without waiting`,
            type: 'FluxLoopError',
          });
          await this.persist(work);
          return;
        }
      }
    }
  }

  /**
   * Delivers an event to a waiting context: the first event transition of that name whose
   * condition holds, else `$else`. Returns false (changing nothing) when none applies.
   */
  async deliver(work: Work, event: EventRecord): Promise<boolean> {
    const state = this.state(work);
    const plan = planOf(state);
    const candidates = plan.byEvent.get(event.name);
    // The event's input merges into vars; an empty input leaves them as they are.
    const vars = isEmpty(event.input) ? work.record.vars : { ...work.record.vars, ...event.input };
    let target: string | undefined;
    if (candidates) {
      try {
        target = await this.firstHolding(work, candidates, { vars, event, output: null });
      } catch (err) {
        if (isWriteFailure(err)) throw err;
        // A condition that throws is the waiting state's exception.
        if (!this.exception(work, state, err)) await this.persist(work);
        else await this.run(work);
        return true;
      }
    }
    target ??= plan.elseTo;
    if (target === undefined) return false;
    work.record.vars = vars;
    work.record.event = event;
    this.move(work, target, 'event', event.name);
    await this.run(work);
    return true;
  }

  /** The target of the first of `candidates` whose condition holds (none: no sandbox call). */
  private async firstHolding(
    work: Work,
    candidates: { to: string; condition?: string }[],
    scope: Record<string, unknown>,
  ): Promise<string | undefined> {
    const first = candidates[0]!;
    if (first.condition === undefined) return first.to;
    const conditions: string[] = [];
    for (const t of candidates) if (t.condition !== undefined) conditions.push(t.condition);
    const results = await this.evaluate(work, conditions, scope);
    let i = 0;
    for (const t of candidates) {
      if (t.condition === undefined || results[i++]) return t.to;
    }
    return undefined;
  }

  /** Takes the time transition due at `deadline`; false when the context no longer waits for it. */
  async fire(work: Work, deadline: number): Promise<boolean> {
    const r = work.record;
    if (r.status !== 'WAITING_UNTIL' || r.nextRun !== deadline) return false;
    const t = this.state(work).transitions[r.nextTransition];
    if (!t) return false;
    r.event = null;
    this.move(work, t.to, 'time');
    await this.run(work);
    return true;
  }

  /** Ends a context (TERMINATED, or FAILED) and writes it. */
  async end(work: Work, status: 'TERMINATED'): Promise<void> {
    this.finish(work, status);
    await this.persist(work);
  }

  /** Writes the record (and the work's extra ops) in one durable batch, then emits. */
  async persist(work: Work): Promise<void> {
    const r = work.record;
    r.updatedAt = this.deps.clock.now();
    const extra = work.extraOps?.(r) ?? [];
    try {
      work.stored = await this.deps.store.save(r, work.stored, extra);
    } catch (err) {
      if (typeof err === 'object' && err !== null) writeFailures.add(err);
      throw err;
    }
    work.dirty = false;
    const emits = work.emits.splice(0);
    for (const emit of emits) emit();
    if (r.status === 'WAITING_UNTIL') this.deps.onDeadline(r.id, r.nextRun);
  }

  private state(work: Work): StateSpec {
    const s = work.def.byName.get(work.record.currentState);
    if (!s) throw new Error(`state ${work.record.currentState} is not in ${work.def.fluxName}`);
    return s;
  }

  /** Runs the state's action (written as RUNNING first) and merges its output into `vars`. */
  private async runAction(work: Work, state: StateSpec): Promise<unknown> {
    const action = state.action;
    if (!action || action.type === 'none' || !action.service) return null;
    const r = work.record;
    // Durable before the side effect: a crash from here on re-runs this action at start-up.
    if (work.dirty) await this.persist(work);
    const values = await this.evaluate(
      work,
      action.inputs.filter((i) => i.evaluate).map((i) => i.expression),
      { vars: r.vars, event: r.event, output: null },
    );
    const input = actionInput(action, r.vars, values);
    const output = await this.deps.services.invoke(action.service, input, {
      package: r.packageName,
      user: r.user,
    });
    if (output !== null && typeof output === 'object' && !Array.isArray(output)) {
      r.vars = { ...r.vars, ...(output as Record<string, unknown>) };
    }
    work.dirty = true;
    const sc = stateRecord(r, state.name);
    sc.input = input;
    sc.output = output ?? null;
    return output ?? null;
  }

  /** The next state by an immediate transition, or 'rest' once the context is written at rest. */
  private async choose(work: Work, state: StateSpec, output: unknown): Promise<string | 'rest'> {
    const r = work.record;
    const plan = planOf(state);
    const results =
      plan.expressions.length === 0
        ? NO_VALUES
        : await this.evaluate(work, plan.expressions, { vars: r.vars, event: r.event, output });
    let i = 0;
    for (const t of plan.immediates) {
      if (t.condition === undefined || results[i++]) return t.to;
    }
    if (plan.final) {
      this.finish(work, 'DONE');
    } else {
      let nextRun = 0;
      let nextTransition = -1;
      if (plan.timed) {
        const atValues = plan.conditionCount === 0 ? results : results.slice(plan.conditionCount);
        ({ nextRun, nextTransition } = earliestDeadline(
          state,
          this.deps.clock.now(),
          atValues,
          this.deps.timezone,
        ));
      }
      r.status = nextTransition < 0 ? 'WAITING' : 'WAITING_UNTIL';
      r.nextRun = nextTransition < 0 ? 0 : nextRun;
      r.nextTransition = nextTransition;
      // Shared with the plan: records only ever replace `awaiting`, never change it in place.
      r.awaiting = plan.awaiting as string[];
      work.dirty = true;
    }
    await this.persist(work);
    return 'rest';
  }

  /** Takes the state's `$exception` transition if it has one; otherwise marks the context FAILED. */
  private exception(work: Work, state: StateSpec, err: unknown): boolean {
    const e = err as { message?: unknown; code?: unknown; name?: unknown; type?: unknown };
    const message = typeof e?.message === 'string' ? e.message : String(err);
    const name = typeof e?.name === 'string' ? e.name : undefined;
    // The thrown error's own name when it has one (TypeError, MailError), else its stable code.
    const type =
      err instanceof StepError
        ? err.type
        : name && name !== 'Error' && name !== 'JunctionError'
          ? name
          : typeof e?.code === 'string'
            ? e.code
            : (name ?? 'Error');
    const handler = planOf(state).exception;
    if (!handler || type === 'FluxLoopError') {
      this.finish(work, 'FAILED', { message, type });
      return false;
    }
    const r = work.record;
    r.vars = {
      ...r.vars,
      $fluxException: {
        message,
        type,
        fluxStackTrace: [{ fluxName: r.fluxName, stateName: state.name, stateIndex: state.index }],
      },
    };
    this.move(work, handler.to, 'exception', EXCEPTION_EVENT);
    return true;
  }

  private move(work: Work, to: string, kind: string, event?: string): void {
    const r = work.record;
    const from = r.currentState;
    const now = this.deps.clock.now();
    const sc = stateRecord(r, from);
    sc.transitions.push({ kind, to, ...(event ? { event } : {}), at: now });
    if (sc.transitions.length > TRANSITIONS_KEPT)
      sc.transitions.splice(0, sc.transitions.length - TRANSITIONS_KEPT);
    const target = work.def.byName.get(to)!;
    r.currentState = to;
    r.status = 'RUNNING';
    r.nextRun = 0;
    r.nextTransition = -1;
    r.awaiting = [];
    work.dirty = true;
    // Bounded by the store, which seals full chunks of it on save (store/history.ts).
    r.executionHistory.push({ fluxName: r.fluxName, stateName: to, stateIndex: target.index });
    stateRecord(r, to);
    this.deps.metrics.transitions.inc();
    const payload = { contextId: r.id, fluxName: r.fluxName, from, to };
    work.emits.push(() => this.deps.events.emit('flux.context.transitioned', payload));
  }

  private finish(
    work: Work,
    status: 'DONE' | 'FAILED' | 'TERMINATED',
    error?: { message: string; type: string },
  ): void {
    const r = work.record;
    if (FINISHED.has(r.status)) return;
    r.status = status;
    r.nextRun = 0;
    r.nextTransition = -1;
    r.awaiting = [];
    if (error) r.error = error;
    work.dirty = true;
    const payload = { contextId: r.id, fluxName: r.fluxName, status };
    work.emits.push(() => {
      this.deps.metrics.ended.inc({ status });
      this.deps.events.emit('flux.context.ended', payload);
    });
  }

  private evaluate(work: Work, expressions: string[], scope: Record<string, unknown>): Promise<unknown[]> {
    // Nothing to evaluate never reaches the sandbox.
    if (expressions.length === 0) return Promise.resolve(NO_VALUES);
    return this.deps.services.evaluate(work.record.packageName, expressions, scope);
  }
}

function isEmpty(o: Record<string, unknown>): boolean {
  for (const key in o) if (Object.hasOwn(o, key)) return false;
  return true;
}

/**
 * The workflow engine (the FluxEngine contract of types.ts). It takes its dependencies so tests
 * run it on memory storage with a FakeClock: `install()` during plugin registration (deploy hook,
 * `ctx.flux.sendEvent`), `start()` once packages are deployed (recovery, timers), `stop()`.
 *
 * Every change runs inside the context's serializer and resolves after its durable batch.
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock, TimerHandle } from '../../../core/clock.js';
import type { JunctionEvents } from '../../../core/events.js';
import { UnavailableError } from '../../../core/errors.js';
import type { ServiceRegistry } from '../../../core/services/types.js';
import type { Store } from '../../../core/storage/types.js';
import { DefinitionRegistry } from '../definitions/registry.js';
import type { FluxDefinition } from '../definitions/types.js';
import {
  ContextFinishedError,
  ContextNotFoundError,
  PackageNotFoundError,
  StateNotFoundError,
  WorkflowNotFoundError,
} from '../errors.js';
import { ContextStore } from '../store/context-store.js';
import { IdempotencyStore } from '../store/idempotency.js';
import { listContexts } from '../store/listing.js';
import { contextView, FINISHED, stateContextView, type ContextRecord } from '../store/record.js';
import { TimerScheduler } from '../timers/scheduler.js';
import { ContextWork } from './context-work.js';
import { DueTimers } from './due-timers.js';
import { EventDispatcher } from './event-dispatcher.js';
import { FluxMetrics } from './metrics.js';
import { KeyedSerializer, mapLimit } from './serializer.js';
import { StepRunner } from './step-runner.js';
import type {
  ContextFilter,
  ContextRef,
  EventRequest,
  EventResult,
  ExecuteRequest,
  FluxContextView,
  FluxDefinitionView,
  FluxEngine,
  StateContext,
  WorkflowRef,
} from './types.js';
import { satisfiesRule, type AccessCheck } from './access-rule.js';
import { checkTags, parseSendEventArgs } from './validate.js';

export interface FluxEngineOptions {
  /** IANA zone of cron transitions (default UTC; the plugin passes `server.timezone`). */
  timezone?: string;
  /** How far ahead timers are held in memory (default 5 minutes). */
  timerHorizonMs?: number;
  /** Timing wheel resolution (default 1 ms). */
  timerTickMs?: number;
  /** Transitions one run may take without waiting before the context fails (default 1000). */
  maxStepsPerRun?: number;
  /** Contexts an event, a recovery or due timers work on at once (default 32). */
  concurrency?: number;
  /** How long idempotency keys are remembered (default 24 hours; swept hourly). */
  idempotencyTtlMs?: number;
  /** Records of recently worked-on contexts kept in memory (default 10,000; 0: none). */
  cachedContexts?: number;
}

export interface FluxEngineDeps {
  services: ServiceRegistry;
  /** `app.storage.store('flux')`. */
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: Registry;
  events: JunctionEvents;
  /** Whether a sender satisfies a workflow's `access` (broadcasts, triggers); default `satisfiesRule`. */
  allows?: AccessCheck;
  options?: FluxEngineOptions;
}

export class FluxEngineImpl implements FluxEngine {
  readonly definitions: DefinitionRegistry;
  readonly contexts: ContextStore;
  readonly scheduler: TimerScheduler;
  private readonly idempotency: IdempotencyStore;
  private readonly serializer = new KeyedSerializer();
  private readonly runner: StepRunner;
  private readonly dispatcher: EventDispatcher;
  private readonly metrics: FluxMetrics;
  private readonly concurrency: number;
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly dueTimers: DueTimers;
  private readonly work: ContextWork;
  private started = false;
  /** The id counter is loaded: changes are accepted (before `start`, they are refused). */
  private opened = false;
  private sweepTimer: TimerHandle | undefined;

  constructor(private readonly deps: FluxEngineDeps) {
    const o = deps.options ?? {};
    this.concurrency = o.concurrency ?? 32;
    this.definitions = new DefinitionRegistry(deps.store.store('definitions'));
    this.contexts = new ContextStore(deps.store, o.cachedContexts);
    this.idempotency = new IdempotencyStore(deps.store.store('idempotency'));
    this.dueTimers = new DueTimers(
      this.concurrency,
      (id, deadline) => this.work.withContext(id, (work) => this.runner.fire(work, deadline)),
      (err, id) => {
        if (!(err instanceof ContextNotFoundError)) {
          deps.logger.error({ err, contextId: id }, 'a workflow timer failed');
        }
      },
    );
    this.scheduler = new TimerScheduler(deps.clock, this.contexts, (id, at) => this.dueTimers.push(id, at), {
      ...(o.timerHorizonMs ? { horizonMs: o.timerHorizonMs } : {}),
      ...(o.timerTickMs ? { tickMs: o.timerTickMs } : {}),
      onLateness: (ms) => this.metrics.timerLateness.observe(ms / 1000),
      onError: (err) => deps.logger.error({ err }, 'loading workflow timers failed'),
    });
    this.metrics = new FluxMetrics(deps.metrics, {
      timers: () => this.scheduler.size,
      active: () => this.serializer.size,
    });
    this.runner = new StepRunner({
      services: deps.services,
      store: this.contexts,
      clock: deps.clock,
      events: deps.events,
      metrics: this.metrics,
      timezone: o.timezone ?? 'UTC',
      maxSteps: o.maxStepsPerRun ?? 1000,
      onDeadline: (id, at) => this.scheduler.schedule(id, at),
    });
    this.work = new ContextWork({
      contexts: this.contexts,
      definitions: this.definitions,
      serializer: this.serializer,
      runner: this.runner,
      clock: deps.clock,
      onStarted: (payload) => {
        this.metrics.started.inc();
        deps.events.emit('flux.context.started', payload);
      },
    });
    this.dispatcher = new EventDispatcher({
      contexts: this.contexts,
      definitions: this.definitions,
      idempotency: this.idempotency,
      serializer: this.serializer,
      concurrency: this.concurrency,
      withContext: (id, fn) => this.work.withContext(id, fn),
      deliver: (work, event) => this.runner.deliver(work, event),
      start: (def, request, extraVars, extraOps) => this.work.start(def, request, extraVars, extraOps),
      onBackgroundError: (err, id) =>
        deps.logger.error({ err, contextId: id }, 'a queued workflow event failed'),
      now: () => deps.clock.now(),
      allows: deps.allows ?? satisfiesRule,
    });
  }

  /** Adds the deploy hook and `ctx.flux.sendEvent`; call during plugin registration. */
  install(): void {
    this.deps.services.addDeployHook(this.definitions.deployHook());
    this.deps.services.provideHostFunction('flux.sendEvent', async (args, caller) => {
      this.assertOpen();
      return this.dispatcher.send({ ...parseSendEventArgs(args), user: caller.user }, true);
    });
  }

  /** Resumes contexts caught mid-step and loads timers (overdue ones fire). */
  async start(): Promise<void> {
    const t0 = performance.now();
    await this.contexts.open();
    this.opened = true;
    const running: number[] = [];
    for await (const id of this.contexts.ids('status', 'RUNNING', true)) running.push(id);
    await mapLimit(running, this.concurrency, (id) =>
      this.work
        .withContext(id, async () => undefined)
        .catch((err: unknown) =>
          this.deps.logger.error({ err, contextId: id }, 'resuming a workflow context failed'),
        ),
    );
    this.started = true;
    this.dueTimers.resume();
    await this.sweepIdempotency();
    const overdue = await this.scheduler.start();
    const ms = Math.round(performance.now() - t0);
    this.deps.logger.info(
      { rerun: running.length, overdueTimers: overdue, ms },
      `flux engine recovered ${running.length + overdue} contexts (${running.length} re-run mid-step, ${overdue} overdue timers) in ${ms} ms`,
    );
  }

  async stop(): Promise<void> {
    this.started = false;
    if (this.sweepTimer) this.deps.clock.clearTimeout(this.sweepTimer);
    this.sweepTimer = undefined;
    this.scheduler.stop();
    this.dueTimers.pause();
    await this.serializer.idle();
  }

  async execute(request: ExecuteRequest): Promise<ContextRef> {
    this.assertOpen();
    const def = this.liveDefinition(request.packageName, request.fluxName);
    const startState = request.startState ?? def.states[0]!.name;
    if (!def.byName.has(startState)) {
      throw new StateNotFoundError(`workflow ${request.fluxName} has no state "${startState}"`);
    }
    checkTags(request.tags);
    const key = request.idempotencyKey;
    if (key === undefined) return this.work.start(def, { ...request, startState });
    return this.once(`execute:${key}`, async () => {
      const seen = await this.idempotency.getExecute(key);
      if (seen?.final) return { contextId: seen.contextId, state: seen.state };
      if (seen) {
        // The first request is still running (or was cut short by a crash): answer where it is now.
        const view = await this.serializer.run(seen.contextId, () => this.contexts.load(seen.contextId));
        return { contextId: seen.contextId, state: view?.record.currentState ?? seen.state };
      }
      return this.work.start(def, { ...request, startState }, {}, (r) => [
        this.idempotency.executeOp(key, {
          contextId: r.id,
          state: r.currentState,
          final: r.status !== 'RUNNING',
          at: this.deps.clock.now(),
        }),
      ]);
    });
  }

  async sendEvent(request: EventRequest): Promise<EventResult> {
    this.assertOpen();
    return this.dispatcher.send(request, false);
  }

  async terminate(contextId: number): Promise<void> {
    this.assertOpen();
    await this.work.withContext(contextId, async (work) => {
      if (FINISHED.has(work.record.status)) {
        throw new ContextFinishedError(`context ${contextId} has already finished (${work.record.status})`);
      }
      await this.runner.end(work, 'TERMINATED');
    });
  }

  async getContext(contextId: number): Promise<FluxContextView | undefined> {
    const loaded = await this.contexts.load(contextId);
    if (!loaded) return undefined;
    const sealed = await this.contexts.sealedHistory([loaded.record]);
    return contextView(loaded.record, sealed.get(contextId));
  }

  async listContexts(filter: ContextFilter): Promise<FluxContextView[]> {
    const limit = Math.min(1000, Math.max(1, Math.floor(filter.limit)));
    const page = Math.max(0, Math.floor(filter.page));
    const records = await listContexts(this.contexts, { ...filter, limit, page });
    const sealed = await this.contexts.sealedHistory(records);
    return records.map((r) => contextView(r, sealed.get(r.id)));
  }

  async getStateContext(contextId: number, stateName: string): Promise<StateContext> {
    const { record, def } = await this.read(contextId);
    if (!def.byName.has(stateName)) {
      throw new StateNotFoundError(`workflow ${record.fluxName} has no state "${stateName}"`);
    }
    return stateContextView(record, stateName);
  }

  addTags(contextId: number, tags: string[]): Promise<void> {
    return this.changeTags(contextId, tags, (current) => [...new Set([...current, ...tags])]);
  }

  removeTags(contextId: number, tags: string[]): Promise<void> {
    return this.changeTags(contextId, tags, (current) => current.filter((t) => !tags.includes(t)));
  }

  async getDefinition(
    ref: WorkflowRef | { fluxName: string } | { contextId: number },
  ): Promise<FluxDefinitionView> {
    return (await this.definitionOf(ref)).view;
  }

  findWorkflow(fluxName: string): WorkflowRef | undefined {
    const def = this.definitions.find(fluxName);
    return def && { packageName: def.packageName, fluxName: def.fluxName };
  }

  async accessOf(
    ref: WorkflowRef | { contextId: number },
  ): Promise<{ groups?: string[]; users?: string[] } | undefined> {
    return (await this.definitionOf(ref)).access;
  }

  /** Waits until no work is in progress (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.serializer.size > 0 || this.dueTimers.pending > 0) {
      await this.serializer.idle();
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private assertOpen(): void {
    if (!this.opened) throw new UnavailableError('the workflow engine has not started yet');
  }

  /** Forgets idempotency keys older than the time-to-live, now and every hour. */
  private async sweepIdempotency(): Promise<void> {
    const ttl = this.deps.options?.idempotencyTtlMs ?? 24 * 3600_000;
    try {
      const n = await this.idempotency.sweep(this.deps.clock.now() - ttl);
      if (n > 0) this.deps.logger.debug({ deleted: n }, 'expired idempotency keys removed');
    } catch (err) {
      this.deps.logger.error({ err }, 'removing expired idempotency keys failed');
    }
    if (this.started) {
      this.sweepTimer = this.deps.clock.setTimeout(() => void this.sweepIdempotency(), 3600_000);
    }
  }

  private async changeTags(
    contextId: number,
    tags: string[],
    change: (current: string[]) => string[],
  ): Promise<void> {
    this.assertOpen();
    checkTags(tags);
    await this.work.withContext(contextId, async (work) => {
      const next = change(work.record.tags);
      if (next.length === work.record.tags.length && next.every((t, i) => t === work.record.tags[i])) return;
      work.record.tags = next;
      await this.runner.persist(work);
    });
  }

  private async definitionOf(
    ref: WorkflowRef | { fluxName: string } | { contextId: number },
  ): Promise<FluxDefinition> {
    if ('contextId' in ref && ref.contextId !== undefined) return (await this.read(ref.contextId)).def;
    const { fluxName, packageName } = ref as { fluxName: string; packageName?: string };
    if (packageName !== undefined) return this.liveDefinition(packageName, fluxName);
    const def = this.definitions.find(fluxName);
    if (!def) throw new WorkflowNotFoundError(`no workflow ${fluxName} is deployed`);
    return def;
  }

  private async read(contextId: number): Promise<{ record: ContextRecord; def: FluxDefinition }> {
    const loaded = await this.contexts.load(contextId);
    if (!loaded) throw new ContextNotFoundError(`no context ${contextId}`);
    const r = loaded.record;
    return { record: r, def: await this.definitions.version(r.packageName, r.fluxName, r.definitionVersion) };
  }

  private liveDefinition(packageName: string, fluxName: string): FluxDefinition {
    if (!this.definitions.hasPackage(packageName) && !this.deps.services.hasPackage(packageName)) {
      throw new PackageNotFoundError(`no package ${packageName} is deployed`);
    }
    const def = this.definitions.get(packageName, fluxName);
    if (!def) throw new WorkflowNotFoundError(`package ${packageName} has no workflow ${fluxName}`);
    return def;
  }

  /** De-duplicates concurrent requests with the same idempotency key in this process. */
  private once<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const pending = this.inflight.get(key);
    if (pending) return pending as Promise<T>;
    const p = fn().finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }
}

/**
 * Work on one context, always inside its serializer: loading it with the definition version it
 * runs on, or creating it and running it to rest.
 */
import type { Clock } from '../../../core/clock.js';
import type { JunctionEventMap } from '../../../core/events.js';
import type { DefinitionRegistry } from '../definitions/registry.js';
import type { FluxDefinition } from '../definitions/types.js';
import { ContextNotFoundError } from '../errors.js';
import type { ContextStore } from '../store/context-store.js';
import { newContextRecord } from '../store/record.js';
import type { KeyedSerializer } from './serializer.js';
import type { StepRunner, Work } from './step-runner.js';
import type { ContextRef, ExecuteRequest } from './types.js';

export interface ContextWorkDeps {
  contexts: ContextStore;
  definitions: DefinitionRegistry;
  serializer: KeyedSerializer;
  runner: StepRunner;
  clock: Clock;
  /** Called once a new context's first batch has committed. */
  onStarted(payload: JunctionEventMap['flux.context.started']): void;
}

export class ContextWork {
  constructor(private readonly deps: ContextWorkDeps) {}

  /**
   * Runs `fn` on a context inside its serializer. A context found RUNNING there was caught
   * mid-step (by a crash): it is run to rest first, so `fn` always sees a context at rest.
   */
  withContext<T>(contextId: number, fn: (work: Work) => Promise<T>): Promise<T> {
    return this.deps.serializer.run(contextId, async () => {
      const { contexts } = this.deps;
      const loaded = await contexts.checkOut(contextId);
      if (!loaded) throw new ContextNotFoundError(`no context ${contextId}`);
      const r = loaded.record;
      try {
        const def = await this.deps.definitions.version(r.packageName, r.fluxName, r.definitionVersion);
        const work: Work = { stored: loaded, record: r, def, emits: [], dirty: false };
        if (r.status === 'RUNNING') await this.deps.runner.run(work);
        const result = await fn(work);
        // The record is cached again only as it was last saved: unsaved changes are dropped.
        if (work.dirty) contexts.forget(contextId);
        else if (work.stored) contexts.checkIn(work.stored);
        return result;
      } catch (err) {
        contexts.forget(contextId);
        throw err;
      }
    });
  }

  /** Creates a context RUNNING in its start state and runs it to rest. */
  start(
    def: FluxDefinition,
    request: Pick<ExecuteRequest, 'startState' | 'input' | 'tags' | 'user'>,
    extraVars: Record<string, unknown> = {},
    extraOps?: Work['extraOps'],
  ): Promise<ContextRef> {
    const id = this.deps.contexts.allocateId();
    const start = def.byName.get(request.startState ?? def.states[0]!.name)!;
    const record = newContextRecord(id, def, start, request, extraVars, this.deps.clock.now());
    const payload = {
      contextId: id,
      fluxName: def.fluxName,
      packageName: def.packageName,
      state: start.name,
    };
    const work: Work = {
      stored: undefined,
      record,
      def,
      ...(extraOps ? { extraOps } : {}),
      dirty: true,
      emits: [() => this.deps.onStarted(payload)],
    };
    return this.deps.serializer.run(id, async () => {
      try {
        await this.deps.runner.run(work);
      } catch (err) {
        this.deps.contexts.forget(id);
        throw err;
      }
      if (work.dirty) this.deps.contexts.forget(id);
      return { contextId: id, state: record.currentState };
    });
  }
}

/**
 * Routing of events (SEED-SPEC 4.3, CONTRACT §5): to one context (`contextId`), to the waiting
 * contexts carrying all `tags` (the tag index, then each one's status looked up by key), or else to every context waiting
 * for that event name (the `await` index); plus a new context for every live workflow whose
 * `triggers` contain it (not when `contextId` is given). Nothing scans every context.
 *
 * A broadcast reaches, and a trigger starts, only workflows whose `access` the sender satisfies
 * (access-rule.ts); the others are skipped silently. With `contextId` the caller has been judged
 * against that context's rule already (the API answers 401/403).
 */
import type { BatchOp } from '../../../core/storage/types.js';
import type { DefinitionRegistry } from '../definitions/registry.js';
import type { FluxDefinition } from '../definitions/types.js';
import { ContextFinishedError, ContextNotFoundError } from '../errors.js';
import { idKey, type ContextStore } from '../store/context-store.js';
import type { IdempotencyStore } from '../store/idempotency.js';
import { IntersectionStream, iterate } from '../store/id-stream.js';
import { FINISHED, isWaiting, type ContextRecord, type EventRecord } from '../store/record.js';
import { mapLimit, type KeyedSerializer } from './serializer.js';
import { mayReach, type AccessCheck } from './access-rule.js';
import type { Work } from './step-runner.js';
import type { ContextRef, EventRequest, EventResult, ExecuteRequest } from './types.js';
import { checkEvent } from './validate.js';

export interface EventDispatcherDeps {
  contexts: ContextStore;
  definitions: DefinitionRegistry;
  idempotency: IdempotencyStore;
  serializer: KeyedSerializer;
  concurrency: number;
  withContext<T>(id: number, fn: (work: Work) => Promise<T>): Promise<T>;
  deliver(work: Work, event: EventRecord): Promise<boolean>;
  start(
    def: FluxDefinition,
    request: Pick<ExecuteRequest, 'input' | 'tags' | 'user'>,
    extraVars: Record<string, unknown>,
    extraOps?: (r: ContextRecord) => BatchOp[],
  ): Promise<ContextRef>;
  onBackgroundError(err: unknown, contextId: number): void;
  now(): number;
  /** Whether a sender satisfies a workflow's `access` rule. */
  allows: AccessCheck;
}

/** Who a broadcast may reach: the sender, and whether it must carry all of some tags. */
interface Reach {
  tags: string[] | undefined;
  user: EventRequest['user'];
}

interface Idem {
  key: string;
  /** Targets the request already acted on before a crash (`c/<id>`, `t/<pkg>/<flux>`). */
  markers: Map<string, ContextRef>;
}

export class EventDispatcher {
  private readonly inflight = new Map<string, Promise<EventResult>>();

  constructor(private readonly deps: EventDispatcherDeps) {}

  /**
   * `fromService`: sent by `ctx.flux.sendEvent` from inside an action. An event for a context
   * with a step in progress (maybe the very one calling) is then queued behind that step instead
   * of awaited, which would deadlock; its id is listed in `queued`.
   */
  async send(request: EventRequest, fromService: boolean): Promise<EventResult> {
    checkEvent(request);
    const key = request.idempotencyKey;
    if (key === undefined) return this.dispatch(request, fromService, undefined);
    const pending = this.inflight.get(key);
    if (pending) return pending;
    const p = (async () => {
      const seen = await this.deps.idempotency.getEvent(key);
      if (seen) return seen;
      const markers = await this.deps.idempotency.markers(key);
      const result = await this.dispatch(request, fromService, { key, markers });
      await this.deps.idempotency.putEvent(key, result, this.deps.now());
      return result;
    })().finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async dispatch(
    request: EventRequest,
    fromService: boolean,
    idem: Idem | undefined,
  ): Promise<EventResult> {
    const event: EventRecord = { name: request.event, input: request.input ?? {} };
    const queued: number[] = [];
    const broadcast: Reach = { tags: request.tags, user: request.user };
    const deliverTo = async (id: number, strict: boolean): Promise<ContextRef | undefined> => {
      const prior = idem?.markers.get(`c/${idKey(id)}`);
      if (prior) {
        idem!.markers.delete(`c/${idKey(id)}`);
        return prior;
      }
      const reach = strict ? undefined : broadcast;
      if (fromService && this.deps.serializer.busy(id)) {
        queued.push(id);
        this.deliverOne(id, event, reach, idem).catch((err: unknown) => this.deps.onBackgroundError(err, id));
        return undefined;
      }
      return this.deliverOne(id, event, reach, idem);
    };

    if (request.contextId !== undefined) {
      const ref = await deliverTo(request.contextId, true);
      if (ref) return { transitions: [ref], executions: [] };
      return queued.length > 0
        ? { transitions: [], executions: [], queued }
        : { transitions: [], executions: [], notDelivered: true };
    }

    const candidates = await this.candidates(request);
    const refs = await mapLimit(candidates, this.deps.concurrency, (id) => deliverTo(id, false));
    const transitions = refs.filter((r): r is ContextRef => r !== undefined);
    const executions: ContextRef[] = [];
    for (const [target, ref] of idem?.markers ?? []) {
      // Acted on before a crash and no longer a candidate: still part of the first answer.
      (target.startsWith('c/') ? transitions : executions).push(ref);
    }
    for (const def of this.deps.definitions.triggeredBy(request.event)) {
      const target = `t/${encodeURIComponent(def.packageName)}/${encodeURIComponent(def.fluxName)}`;
      if (idem?.markers.has(target)) continue;
      if (!mayReach(this.deps.allows, request.user, def.access)) continue;
      const mark = idem ? (r: ContextRecord) => [this.marker(idem, target, r)] : undefined;
      executions.push(
        await this.deps.start(
          def,
          {
            input: event.input,
            ...(request.tags ? { tags: request.tags } : {}),
            ...(request.user ? { user: request.user } : {}),
          },
          { $triggerFluxEvent: request.event },
          mark,
        ),
      );
    }
    transitions.sort((a, b) => a.contextId - b.contextId);
    return { transitions, executions, ...(queued.length > 0 ? { queued } : {}) };
  }

  /**
   * The contexts a broadcast is for, oldest first: the waiting ones carrying every tag (the tag
   * index, then a point lookup of each one's status), or else those waiting for the event.
   */
  private async candidates(request: EventRequest): Promise<number[]> {
    const ids: number[] = [];
    const tags = request.tags && request.tags.length > 0 ? [...new Set(request.tags)] : undefined;
    const source = !tags
      ? this.deps.contexts.ids('await', request.event)
      : tags.length === 1
        ? this.deps.contexts.ids('tag', tags[0]!)
        : iterate(new IntersectionStream(tags.map((t) => this.deps.contexts.stream('tag', t))));
    for await (const id of source) ids.push(id);
    ids.reverse();
    return tags ? this.deps.contexts.waiting(ids) : ids;
  }

  private async deliverOne(
    id: number,
    event: EventRecord,
    /** A broadcast's reach; undefined for the one context named by `contextId`. */
    reach: Reach | undefined,
    idem: Idem | undefined,
  ): Promise<ContextRef | undefined> {
    const strict = reach === undefined;
    try {
      return await this.deps.withContext(id, async (work) => {
        const r = work.record;
        if (FINISHED.has(r.status)) {
          if (strict) throw new ContextFinishedError(`context ${id} has already finished (${r.status})`);
          return undefined;
        }
        if (!isWaiting(r.status)) return undefined;
        if (reach) {
          if (reach.tags && !reach.tags.every((t) => r.tags.includes(t))) return undefined;
          if (!mayReach(this.deps.allows, reach.user, work.def.access)) return undefined;
        }
        if (idem) work.extraOps = (rec) => [this.marker(idem, `c/${idKey(id)}`, rec)];
        const delivered = await this.deps.deliver(work, event);
        return delivered ? { contextId: id, state: r.currentState } : undefined;
      });
    } catch (err) {
      if (!strict && err instanceof ContextNotFoundError) return undefined;
      throw err;
    }
  }

  private marker(idem: Idem, target: string, r: ContextRecord): BatchOp {
    return this.deps.idempotency.markerOp(
      idem.key,
      target,
      { contextId: r.id, state: r.currentState },
      this.deps.now(),
    );
  }
}

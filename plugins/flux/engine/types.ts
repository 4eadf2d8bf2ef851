/**
 * The workflow engine's contract, between the engine (plugins/flux/engine/) and the REST API
 * (plugins/flux/api/). Shapes of contexts and definitions are SEED-SPEC 2.3–2.6 exactly.
 */
import type { UserRef } from '../../../core/services/types.js';

export type FluxStatus = 'RUNNING' | 'WAITING' | 'WAITING_UNTIL' | 'DONE' | 'FAILED' | 'TERMINATED';

/** SEED-SPEC 2.4. */
export interface ModelDescriptor {
  name: string;
  type: 'model';
  allowExtraProperties: boolean;
  modelProperties: unknown[];
}

/** SEED-SPEC 2.5. */
export interface StateContext {
  name: string;
  input: ModelDescriptor;
  output: ModelDescriptor;
  transitionContexts: Record<string, unknown>[];
}

export interface HistoryEntry {
  fluxName: string;
  stateName: string;
  stateIndex: number;
}

/** SEED-SPEC 2.3, plus `vars` (the context's variables) and a few fields of our own. */
export interface FluxContextView {
  fluxName: string;
  id: number;
  currentState: string;
  startState: string;
  waiting: boolean;
  debugged: boolean;
  /** Epoch ms of the earliest pending deadline; 0 when none. */
  nextRun: number;
  status: FluxStatus;
  input: ModelDescriptor;
  output: ModelDescriptor;
  tags: string[];
  stateContexts: StateContext[];
  executionHistory: HistoryEntry[];
  vars: Record<string, unknown>;
  packageName: string;
  /** The error that ended a FAILED context. */
  error?: { message: string; type: string };
}

/** SEED-SPEC 2.6 plus transitions and access (CONTRACT §4), as deployed. */
export interface FluxDefinitionView {
  comment?: string;
  triggers: string[];
  access?: { groups?: string[]; users?: string[] };
  states: Record<string, unknown>[];
}

/** A live workflow of one package (two packages may have workflows of the same name). */
export interface WorkflowRef {
  packageName: string;
  fluxName: string;
}

export interface ContextRef {
  contextId: number;
  state: string;
}

export interface EventResult {
  /** Waiting contexts moved by the event (SEED-SPEC 4.3). */
  transitions: ContextRef[];
  /** Contexts started by a trigger. */
  executions: ContextRef[];
  /** With `contextId`: true when that context has no transition for the event (and no `$else`). */
  notDelivered?: boolean;
  /**
   * Only for `ctx.flux.sendEvent` from a service: contexts with a step in progress (possibly the
   * calling one) to which the event was queued rather than awaited.
   */
  queued?: number[];
}

export interface ContextFilter {
  fluxName?: string;
  /** All of these (AND). */
  tags?: string[];
  status?: FluxStatus;
  currentState?: string;
  startState?: string;
  limit: number;
  page: number;
}

export interface ExecuteRequest {
  packageName: string;
  fluxName: string;
  startState?: string;
  input?: Record<string, unknown>;
  tags?: string[];
  user?: UserRef;
  /** Same key, same answer: the first result, durably recorded with the change. */
  idempotencyKey?: string;
}

export interface EventRequest {
  event: string;
  input?: Record<string, unknown>;
  tags?: string[];
  contextId?: number;
  /**
   * The sender (undefined: anonymous). Without `contextId`, the event reaches (and its triggers
   * start) only workflows whose `access` this user satisfies; the others are skipped silently.
   */
  user?: UserRef;
  idempotencyKey?: string;
}

/**
 * Every method that changes something resolves only after the change is durable (group commit).
 * Errors are JunctionErrors: JCT_FLUX_CONTEXT_NOT_FOUND / JCT_FLUX_WORKFLOW_NOT_FOUND /
 * JCT_FLUX_PACKAGE_NOT_FOUND / JCT_FLUX_STATE_NOT_FOUND (404), JCT_FLUX_CONTEXT_FINISHED (409).
 */
export interface FluxEngine {
  execute(request: ExecuteRequest): Promise<ContextRef>;
  sendEvent(request: EventRequest): Promise<EventResult>;
  terminate(contextId: number): Promise<void>;
  getContext(contextId: number): Promise<FluxContextView | undefined>;
  listContexts(filter: ContextFilter): Promise<FluxContextView[]>;
  getStateContext(contextId: number, stateName: string): Promise<StateContext>;
  addTags(contextId: number, tags: string[]): Promise<void>;
  removeTags(contextId: number, tags: string[]): Promise<void>;
  /**
   * The live definition of a workflow (by name alone: the first package, by name, having it), or
   * of the version a context runs on.
   */
  getDefinition(ref: WorkflowRef | { fluxName: string } | { contextId: number }): Promise<FluxDefinitionView>;
  /** The live workflow a lookup by name alone finds (the first package, by name, having it). */
  findWorkflow(fluxName: string): WorkflowRef | undefined;
  /** The `access` rule of a live workflow, or of a context's workflow; undefined when open. */
  accessOf(
    ref: WorkflowRef | { contextId: number },
  ): Promise<{ groups?: string[]; users?: string[] } | undefined>;
}

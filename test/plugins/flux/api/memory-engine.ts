/**
 * A test double of the FluxEngine contract for the HTTP layer's tests: workflows without actions
 * (states, event transitions, `$else`, triggers, access), in memory. It exists so the API's
 * parameter handling, auth, errors and shapes are tested independently of the engine; the
 * integration tests (flux-api.real.test.ts) run the same API over the real engine.
 */
import { JunctionError } from '../../../../core/errors.js';
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
} from '../../../../plugins/flux/engine/types.js';

export interface TestState {
  name: string;
  transitions?: { event?: string; after?: string; to: string }[];
}

export interface TestWorkflow {
  packageName: string;
  fluxName: string;
  comment?: string;
  triggers?: string[];
  access?: { groups?: string[]; users?: string[] };
  states: TestState[];
}

const notFound = (code: string, message: string) => new JunctionError(code, 404, message);
const model = (name: string) => ({
  name,
  type: 'model' as const,
  allowExtraProperties: true,
  modelProperties: [],
});

export class MemoryFluxEngine implements FluxEngine {
  readonly calls: { method: string; args: unknown }[] = [];
  private readonly workflows = new Map<string, TestWorkflow>();
  private readonly contexts = new Map<number, FluxContextView>();
  private readonly idempotent = new Map<string, unknown>();
  private nextId = 1;

  constructor(workflows: TestWorkflow[]) {
    for (const w of workflows) this.workflows.set(w.fluxName, w);
  }

  async execute(request: ExecuteRequest): Promise<ContextRef> {
    this.calls.push({ method: 'execute', args: request });
    return this.once(request.idempotencyKey, () => {
      if (![...this.workflows.values()].some((w) => w.packageName === request.packageName))
        throw notFound('JCT_FLUX_PACKAGE_NOT_FOUND', `package ${request.packageName} is not deployed`);
      const w = this.workflow(request.fluxName);
      if (w.packageName !== request.packageName)
        throw notFound(
          'JCT_FLUX_WORKFLOW_NOT_FOUND',
          `no workflow ${request.fluxName} in ${request.packageName}`,
        );
      const start = request.startState ?? w.states[0]!.name;
      this.state(w, start);
      return this.start(w, start, request.input ?? {}, request.tags ?? []);
    });
  }

  async sendEvent(request: EventRequest): Promise<EventResult> {
    this.calls.push({ method: 'sendEvent', args: request });
    return this.once(request.idempotencyKey, () => {
      const result: EventResult = { transitions: [], executions: [] };
      if (request.contextId !== undefined) {
        const c = this.context(request.contextId);
        if (!c.waiting)
          throw new JunctionError('JCT_FLUX_CONTEXT_FINISHED', 409, `context ${c.id} has ended`);
        const moved = this.deliver(c, request);
        if (moved) result.transitions.push(moved);
        else result.notDelivered = true;
        return result;
      }
      for (const c of this.contexts.values()) {
        if (!c.waiting || !(request.tags ?? []).every((t) => c.tags.includes(t))) continue;
        const moved = this.deliver(c, request);
        if (moved) result.transitions.push(moved);
      }
      for (const w of this.workflows.values()) {
        if (w.triggers?.includes(request.event))
          result.executions.push(
            this.start(
              w,
              w.states[0]!.name,
              { ...request.input, $triggerFluxEvent: request.event },
              request.tags ?? [],
            ),
          );
      }
      return result;
    });
  }

  async terminate(contextId: number): Promise<void> {
    const c = this.context(contextId);
    if (!c.waiting)
      throw new JunctionError('JCT_FLUX_CONTEXT_FINISHED', 409, `context ${contextId} has ended`);
    Object.assign(c, { waiting: false, status: 'TERMINATED' });
  }

  async getContext(contextId: number): Promise<FluxContextView | undefined> {
    return this.contexts.get(contextId);
  }

  async listContexts(filter: ContextFilter): Promise<FluxContextView[]> {
    this.calls.push({ method: 'listContexts', args: filter });
    return [...this.contexts.values()]
      .reverse()
      .filter(
        (c) =>
          (filter.fluxName === undefined || c.fluxName === filter.fluxName) &&
          (filter.status === undefined || c.status === filter.status) &&
          (filter.currentState === undefined || c.currentState === filter.currentState) &&
          (filter.startState === undefined || c.startState === filter.startState) &&
          (filter.tags ?? []).every((t) => c.tags.includes(t)),
      )
      .slice(filter.page * filter.limit, (filter.page + 1) * filter.limit);
  }

  async getStateContext(contextId: number, stateName: string): Promise<StateContext> {
    const c = this.context(contextId);
    const sc = c.stateContexts.find((s) => s.name === stateName);
    if (!sc) throw notFound('JCT_FLUX_STATE_NOT_FOUND', `context ${contextId} has no state ${stateName}`);
    return sc;
  }

  async addTags(contextId: number, tags: string[]): Promise<void> {
    const c = this.context(contextId);
    c.tags = [...new Set([...c.tags, ...tags])];
  }

  async removeTags(contextId: number, tags: string[]): Promise<void> {
    const c = this.context(contextId);
    c.tags = c.tags.filter((t) => !tags.includes(t));
  }

  async getDefinition(ref: { fluxName: string } | { contextId: number }): Promise<FluxDefinitionView> {
    const w =
      'contextId' in ref ? this.workflow(this.context(ref.contextId).fluxName) : this.workflow(ref.fluxName);
    return {
      ...(w.comment === undefined ? {} : { comment: w.comment }),
      triggers: w.triggers ?? [],
      ...(w.access ? { access: w.access } : {}),
      states: w.states.map((s) => ({ ...s })),
    };
  }

  async accessOf(ref: { fluxName: string } | { contextId: number }) {
    const name = 'contextId' in ref ? this.context(ref.contextId).fluxName : ref.fluxName;
    return this.workflow(name).access;
  }

  private once<T>(key: string | undefined, act: () => T): T {
    if (key !== undefined && this.idempotent.has(key)) return this.idempotent.get(key) as T;
    const result = act();
    if (key !== undefined) this.idempotent.set(key, result);
    return result;
  }

  private start(w: TestWorkflow, state: string, vars: Record<string, unknown>, tags: string[]): ContextRef {
    const id = this.nextId++;
    const c: FluxContextView = {
      fluxName: w.fluxName,
      id,
      currentState: state,
      startState: state,
      waiting: true,
      debugged: false,
      nextRun: 0,
      status: 'WAITING',
      input: model('input'),
      output: model('output'),
      tags: [...tags],
      stateContexts: [],
      executionHistory: [],
      vars: { ...vars },
      packageName: w.packageName,
    };
    this.contexts.set(id, c);
    this.enter(c, w, state);
    return { contextId: id, state: c.currentState };
  }

  private enter(c: FluxContextView, w: TestWorkflow, name: string): void {
    const state = this.state(w, name);
    c.currentState = name;
    c.executionHistory.push({ fluxName: w.fluxName, stateName: name, stateIndex: w.states.indexOf(state) });
    c.stateContexts.push({ name, input: model(name), output: model(name), transitionContexts: [] });
    const hasTimer = (state.transitions ?? []).some((t) => t.after);
    if (!state.transitions?.length) Object.assign(c, { waiting: false, status: 'DONE', nextRun: 0 });
    else
      Object.assign(c, {
        status: hasTimer ? 'WAITING_UNTIL' : 'WAITING',
        nextRun: hasTimer ? Date.now() + 3600_000 : 0,
      });
  }

  private deliver(c: FluxContextView, request: EventRequest): ContextRef | undefined {
    const w = this.workflow(c.fluxName);
    const ts = this.state(w, c.currentState).transitions ?? [];
    const t = ts.find((x) => x.event === request.event) ?? ts.find((x) => x.event === '$else');
    if (!t) return undefined;
    Object.assign(c.vars, request.input);
    this.enter(c, w, t.to);
    return { contextId: c.id, state: c.currentState };
  }

  private workflow(fluxName: string): TestWorkflow {
    const w = this.workflows.get(fluxName);
    if (!w) throw notFound('JCT_FLUX_WORKFLOW_NOT_FOUND', `no workflow ${fluxName}`);
    return w;
  }

  private state(w: TestWorkflow, name: string): TestState {
    const s = w.states.find((x) => x.name === name);
    if (!s) throw notFound('JCT_FLUX_STATE_NOT_FOUND', `workflow ${w.fluxName} has no state ${name}`);
    return s;
  }

  private context(id: number): FluxContextView {
    const c = this.contexts.get(id);
    if (!c) throw notFound('JCT_FLUX_CONTEXT_NOT_FOUND', `context ${id} does not exist`);
    return c;
  }
}

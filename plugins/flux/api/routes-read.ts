import type { FastifyRequest } from 'fastify';
import { fromWireError, JunctionError, NotFoundError, ValidationError } from '../../../core/errors.js';
import type { JunctionApp } from '../../../core/plugins/types.js';
import type { UserRef } from '../../../core/services/types.js';
import type { ContextFilter, FluxContextView, FluxEngine, FluxStatus, WorkflowRef } from '../engine/types.js';
import { WorkflowNotFoundError } from '../errors.js';
import type { AccessRule } from '../../auth/types.js';
import type { FluxAccess } from './access.js';
import { splitTags } from './params.js';
import {
  contextIdParam,
  contextSchema,
  contextsQuery,
  definitionSchema,
  errorResponses,
  stateContextSchema,
  optionalBearer,
} from './schemas.js';

interface ContextsQuery {
  fluxName?: string;
  tag?: string[];
  status?: FluxStatus;
  currentState?: string;
  startState?: string;
  limit: number;
  page: number;
}

/** The routes that read: contexts, context, context/state, definition. */
export function registerReadRoutes(app: JunctionApp, engine: FluxEngine, access: FluxAccess): void {
  app.route({
    method: 'GET',
    url: '/flux-api/contexts',
    schema: {
      summary: 'List contexts, newest first',
      tags: ['flux'],
      security: optionalBearer,
      querystring: contextsQuery,
      response: { 200: { type: 'array', items: contextSchema }, ...errorResponses },
    },
    handler: async (request: FastifyRequest) => {
      const q = request.query as ContextsQuery;
      const user = await access.caller(request);
      const tags = splitTags(q.tag);
      const filter: ContextFilter = {
        limit: q.limit,
        page: q.page,
        ...(q.fluxName === undefined ? {} : { fluxName: q.fluxName }),
        ...(tags.length === 0 ? {} : { tags }),
        ...(q.status === undefined ? {} : { status: q.status }),
        ...(q.currentState === undefined ? {} : { currentState: q.currentState }),
        ...(q.startState === undefined ? {} : { startState: q.startState }),
      };
      return readable(engine, access, user, await engine.listContexts(filter));
    },
  });

  app.route({
    method: 'GET',
    url: '/flux-api/context',
    schema: {
      summary: 'Get a context',
      tags: ['flux'],
      security: optionalBearer,
      querystring: { type: 'object', required: ['contextId'], properties: { contextId: contextIdParam } },
      response: { 200: contextSchema, ...errorResponses },
    },
    handler: async (request: FastifyRequest) => {
      const { contextId } = request.query as { contextId: number };
      await access.authorize(request, () => engine.accessOf({ contextId }));
      const context = await engine.getContext(contextId);
      // accessOf already answered an unknown context with the engine's 404; this covers a context
      // removed in between.
      if (!context) throw contextNotFound(contextId);
      return context;
    },
  });

  app.route({
    method: 'GET',
    url: '/flux-api/context/state',
    schema: {
      summary: 'Get the state context of one state of a context',
      tags: ['flux'],
      security: optionalBearer,
      querystring: {
        type: 'object',
        required: ['contextId', 'stateName'],
        properties: { contextId: contextIdParam, stateName: { type: 'string', minLength: 1 } },
      },
      response: { 200: stateContextSchema, ...errorResponses },
    },
    handler: async (request: FastifyRequest) => {
      const { contextId, stateName } = request.query as { contextId: number; stateName: string };
      await access.authorize(request, () => engine.accessOf({ contextId }));
      return engine.getStateContext(contextId, stateName);
    },
  });

  app.route({
    method: 'GET',
    url: '/flux-api/definition',
    schema: {
      summary: 'Get a workflow definition, by name or by the context running it (contextId wins)',
      tags: ['flux'],
      security: optionalBearer,
      querystring: {
        type: 'object',
        properties: { fluxName: { type: 'string', minLength: 1 }, contextId: contextIdParam },
      },
      response: { 200: definitionSchema, ...errorResponses },
    },
    handler: async (request: FastifyRequest) => {
      const { fluxName, contextId } = request.query as { fluxName?: string; contextId?: number };
      let ref: { contextId: number } | WorkflowRef;
      if (contextId !== undefined) ref = { contextId };
      else if (fluxName !== undefined) ref = workflowNamed(engine, fluxName);
      else throw new ValidationError('querystring parameter "fluxName" or "contextId" is required');
      await access.authorize(request, () => engine.accessOf(ref));
      return engine.getDefinition(ref);
    },
  });
}

/**
 * Only the contexts the caller may read: a page can come out shorter than `limit` when it holds
 * contexts of workflows with `access` the caller does not satisfy (docs/flux-api.md).
 */
async function readable(
  engine: FluxEngine,
  access: FluxAccess,
  user: UserRef | undefined,
  contexts: FluxContextView[],
): Promise<FluxContextView[]> {
  const rules = await Promise.all(
    contexts.map((c) => engine.accessOf({ contextId: c.id }).catch((): AccessRule => ({ users: [] }))),
  );
  return contexts.filter((_c, i) => access.allows(user, rules[i]));
}

/** The live workflow `GET /flux-api/definition?fluxName=` shows (404 when none is deployed). */
function workflowNamed(engine: FluxEngine, fluxName: string): WorkflowRef {
  const ref = engine.findWorkflow(fluxName);
  if (!ref) throw new WorkflowNotFoundError(`no workflow ${fluxName} is deployed`);
  return ref;
}

/** The engine's 404 for an unknown context, rebuilt by its stable code. */
function contextNotFound(contextId: number): Error {
  const err = fromWireError({
    name: 'JunctionError',
    code: 'JCT_FLUX_CONTEXT_NOT_FOUND',
    message: `context ${contextId} does not exist`,
  });
  return err instanceof JunctionError ? err : new NotFoundError(`context ${contextId} does not exist`);
}

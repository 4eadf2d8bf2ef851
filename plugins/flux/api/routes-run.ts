import type { FastifyRequest } from 'fastify';
import type { JunctionApp } from '../../../core/plugins/types.js';
import type { EventResult, FluxEngine } from '../engine/types.js';
import type { FluxAccess } from './access.js';
import { idempotencyKey, splitTags } from './params.js';
import {
  contextIdParam,
  errorResponses,
  eventBody,
  eventResponse,
  executeBody,
  executeResponse,
  idempotencyHeaders,
  messageSchema,
  optionalBearer,
} from './schemas.js';
import { errorSchema } from '../../../core/http/core-routes.js';

interface ExecuteBody {
  fluxName: string;
  startState?: string;
  input?: Record<string, unknown>;
  tags?: string[];
}

interface EventBody {
  event: string;
  input?: Record<string, unknown>;
  tags?: string[];
}

/**
 * The routes that change contexts: execute, terminate, event. Each answers only after the engine
 * resolved, and the engine resolves only once the change is durable.
 */
export function registerRunRoutes(app: JunctionApp, engine: FluxEngine, access: FluxAccess): void {
  app.route({
    method: 'POST',
    url: '/flux-api/:package/execute',
    schema: {
      summary: 'Start a workflow',
      tags: ['flux'],
      security: optionalBearer,
      params: {
        type: 'object',
        required: ['package'],
        properties: { package: { type: 'string', minLength: 1, description: 'Package of the workflow' } },
      },
      headers: idempotencyHeaders,
      body: executeBody,
      response: { 200: executeResponse, ...errorResponses },
    },
    handler: async (request: FastifyRequest) => {
      const body = request.body as ExecuteBody;
      const { package: packageName } = request.params as { package: string };
      // The rule of this package's workflow (404 when there is none), not of another package's
      // workflow of the same name.
      const user = await access.authorize(request, () =>
        engine.accessOf({ packageName, fluxName: body.fluxName }),
      );
      const tags = splitTags(body.tags);
      const started = await engine.execute({
        packageName,
        fluxName: body.fluxName,
        ...(body.startState === undefined ? {} : { startState: body.startState }),
        ...(body.input === undefined ? {} : { input: body.input }),
        ...(tags.length === 0 ? {} : { tags }),
        ...(user ? { user } : {}),
        ...optionalKey(request),
      });
      return {
        message: `Workflow ${body.fluxName} started: context ${started.contextId} is in state ${started.state}`,
        contextId: started.contextId,
      };
    },
  });

  app.route({
    method: 'DELETE',
    url: '/flux-api/terminate',
    schema: {
      summary: 'Terminate a running context',
      tags: ['flux'],
      security: optionalBearer,
      querystring: { type: 'object', required: ['contextId'], properties: { contextId: contextIdParam } },
      response: { 200: messageSchema, ...errorResponses, 409: errorSchema },
    },
    handler: async (request: FastifyRequest) => {
      const { contextId } = request.query as { contextId: number };
      await access.authorize(request, () => engine.accessOf({ contextId }));
      await engine.terminate(contextId);
      return { message: `Context ${contextId} terminated` };
    },
  });

  app.route({
    method: 'POST',
    url: '/flux-api/event',
    schema: {
      summary: 'Send an event to waiting contexts (and start workflows it triggers)',
      tags: ['flux'],
      security: optionalBearer,
      querystring: {
        type: 'object',
        properties: { contextId: { ...contextIdParam, description: 'Only this context receives it' } },
      },
      headers: idempotencyHeaders,
      body: eventBody,
      response: { 200: eventResponse, ...errorResponses, 409: errorSchema },
    },
    handler: async (request: FastifyRequest) => {
      const { contextId } = request.query as { contextId?: number };
      const body = request.body as EventBody;
      // One context: its workflow's access rule. A broadcast: the engine reaches only workflows
      // whose rule the caller satisfies, and skips the others.
      const user =
        contextId === undefined
          ? await access.caller(request)
          : await access.authorize(request, () => engine.accessOf({ contextId }));
      const tags = splitTags(body.tags);
      const result = await engine.sendEvent({
        event: body.event,
        ...(body.input === undefined ? {} : { input: body.input }),
        ...(tags.length === 0 ? {} : { tags }),
        ...(contextId === undefined ? {} : { contextId }),
        ...(user ? { user } : {}),
        ...optionalKey(request),
      });
      return {
        message: eventMessage(body.event, contextId, result),
        transitions: result.transitions,
        executions: result.executions,
      };
    },
  });
}

function optionalKey(request: FastifyRequest): { idempotencyKey?: string } {
  const key = idempotencyKey(request);
  return key === undefined ? {} : { idempotencyKey: key };
}

function eventMessage(event: string, contextId: number | undefined, result: EventResult): string {
  if (result.notDelivered && contextId !== undefined) {
    return `Event ${event} not delivered: context ${contextId} has no transition for it in its current state`;
  }
  const moved = result.transitions.length;
  const started = result.executions.length;
  return (
    `Event ${event} delivered: ${moved} context${moved === 1 ? '' : 's'} transitioned, ` +
    `${started} execution${started === 1 ? '' : 's'} started`
  );
}

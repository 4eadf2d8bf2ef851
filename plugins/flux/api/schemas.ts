/**
 * JSON schemas of the /flux-api routes (SEED-SPEC 2.3–2.6, 4.3). They validate what comes in,
 * shape what goes out (fast-json-stringify drops what a response schema does not declare, so every
 * field of the contract is declared here) and feed /openapi.json.
 */
import { errorSchema } from '../../../core/http/core-routes.js';

const FLUX_STATUSES = ['RUNNING', 'WAITING', 'WAITING_UNTIL', 'DONE', 'FAILED', 'TERMINATED'] as const;

/** Context ids are positive integers; 0 and negatives are malformed (400), not unknown (404). */
export const contextIdParam = {
  type: 'integer',
  minimum: 1,
  description: 'Context id (a positive integer)',
} as const;

/** A tag parameter: repeated (`tag=a&tag=b`) and/or comma-separated (`tag=a,b`). */
export const tagParam = {
  type: 'array',
  items: { type: 'string', maxLength: 200 },
  description: 'Tags: repeated parameters and/or comma-separated values',
} as const;

const tagsBody = {
  type: 'array',
  items: { type: 'string', maxLength: 200 },
  maxItems: 100,
  description: 'Tags (a value may also hold several, comma-separated)',
} as const;

const freeObject = { type: 'object', additionalProperties: true } as const;

export const idempotencyHeaders = {
  type: 'object',
  properties: {
    'idempotency-key': {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'A retry with the same key answers the first result instead of acting twice',
    },
  },
} as const;

export const messageSchema = {
  type: 'object',
  properties: { message: { type: 'string' } },
  required: ['message'],
} as const;

const modelDescriptor = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    type: { type: 'string' },
    allowExtraProperties: { type: 'boolean' },
    modelProperties: { type: 'array', items: {} },
  },
} as const;

export const stateContextSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    input: modelDescriptor,
    output: modelDescriptor,
    transitionContexts: { type: 'array', items: freeObject },
  },
} as const;

export const contextSchema = {
  type: 'object',
  properties: {
    fluxName: { type: 'string' },
    id: { type: 'integer' },
    currentState: { type: 'string' },
    startState: { type: 'string' },
    waiting: { type: 'boolean' },
    debugged: { type: 'boolean' },
    nextRun: { type: 'number' },
    status: { type: 'string', enum: FLUX_STATUSES },
    input: modelDescriptor,
    output: modelDescriptor,
    tags: { type: 'array', items: { type: 'string' } },
    stateContexts: { type: 'array', items: stateContextSchema },
    executionHistory: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          fluxName: { type: 'string' },
          stateName: { type: 'string' },
          stateIndex: { type: 'integer' },
        },
      },
    },
    vars: freeObject,
    packageName: { type: 'string' },
    error: { type: 'object', properties: { message: { type: 'string' }, type: { type: 'string' } } },
  },
} as const;

export const definitionSchema = {
  type: 'object',
  properties: {
    comment: { type: 'string' },
    triggers: { type: 'array', items: { type: 'string' } },
    access: {
      type: 'object',
      properties: {
        groups: { type: 'array', items: { type: 'string' } },
        users: { type: 'array', items: { type: 'string' } },
      },
    },
    states: { type: 'array', items: freeObject },
  },
} as const;

const contextRef = {
  type: 'object',
  properties: { contextId: { type: 'integer' }, state: { type: 'string' } },
} as const;

export const executeBody = {
  type: 'object',
  required: ['fluxName'],
  properties: {
    fluxName: { type: 'string', minLength: 1, description: 'Dotted workflow name (approval.OrderApproval)' },
    startState: { type: 'string', minLength: 1, description: 'State to start in (default: the first)' },
    input: { ...freeObject, description: 'Initial vars' },
    tags: tagsBody,
  },
} as const;

export const executeResponse = {
  type: 'object',
  properties: { message: { type: 'string' }, contextId: { type: 'integer' } },
  required: ['message', 'contextId'],
} as const;

export const eventBody = {
  type: 'object',
  required: ['event'],
  properties: {
    event: { type: 'string', minLength: 1, description: 'Event name' },
    input: { ...freeObject, description: 'Merged into the vars of every context it reaches' },
    tags: { ...tagsBody, description: 'Only contexts carrying all these tags' },
  },
} as const;

export const eventResponse = {
  type: 'object',
  properties: {
    message: { type: 'string' },
    transitions: { type: 'array', items: contextRef },
    executions: { type: 'array', items: contextRef },
  },
  required: ['message', 'transitions', 'executions'],
} as const;

export const contextsQuery = {
  type: 'object',
  properties: {
    fluxName: { type: 'string', minLength: 1 },
    tag: { ...tagParam, description: 'Only contexts carrying all these tags' },
    status: { type: 'string', enum: FLUX_STATUSES },
    currentState: { type: 'string', minLength: 1 },
    startState: { type: 'string', minLength: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 30 },
    page: { type: 'integer', minimum: 0, default: 0 },
  },
} as const;

/** The error answers every flux route may give, for the OpenAPI document. */
export const errorResponses = {
  400: errorSchema,
  401: errorSchema,
  403: errorSchema,
  404: errorSchema,
} as const;

/** OpenAPI: a bearer token is optional (it elevates the caller; some workflows require one). */
export const optionalBearer: { [label: string]: string[] }[] = [{}, { bearer: [] }];

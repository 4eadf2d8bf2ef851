import type { FastifyRequest, RouteOptions } from 'fastify';
import { errorSchema, ValidationError } from '../../core/index.js';
import type { BearerVerifier } from '../auth/types.js';
import { TrackerAuthUnavailableError, TrackerDocumentNotFoundError } from './errors.js';
import type { BatchingRecorder } from './recorder.js';
import type { TrackerStore } from './store.js';

export const ADMIN_GROUP = 'administrators';
export const DEFAULT_LIMIT = 30;
export const MAX_LIMIT = 1000;

const documentSchema = {
  type: 'object',
  properties: {
    internalId: { type: 'string' },
    externalId: { type: 'string' },
    documentType: { type: 'string' },
    senderId: { type: 'string' },
    receiverId: { type: 'string' },
    userName: { type: 'string' },
    timeReceived: { type: 'string', format: 'date-time' },
    state: { type: 'string', enum: ['OK', 'ERROR'] },
    durationMs: { type: 'number' },
  },
} as const;

const errors = { '4xx': errorSchema, '5xx': errorSchema };

export interface TrackerRouteDeps {
  store: TrackerStore;
  recorder: BatchingRecorder;
  verifier: () => BearerVerifier | undefined;
}

interface DocumentsQuery {
  documentType?: string;
  userName?: string;
  from?: string;
  to?: string;
  limit: number;
  page: number;
}

/** `GET /tracker-api/documents` and `GET /tracker-api/document` (docs/tracker.md). */
export function trackerRoutes(deps: TrackerRouteDeps): RouteOptions[] {
  const requireAdmin = async (request: FastifyRequest): Promise<void> => {
    const verifier = deps.verifier();
    if (!verifier) throw new TrackerAuthUnavailableError();
    await verifier.require(request.headers.authorization, { groups: [ADMIN_GROUP] });
  };
  return [
    {
      method: 'GET',
      url: '/tracker-api/documents',
      // Before validation: a caller without the right token learns nothing, not even a 400.
      onRequest: requireAdmin,
      schema: {
        summary: 'Tracker documents, newest first (administrators)',
        tags: ['tracker'],
        security: [{ bearer: [] }],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            documentType: { type: 'string', minLength: 1 },
            userName: { type: 'string', minLength: 1 },
            from: { type: 'string', minLength: 1, description: 'ISO-8601 date-time or epoch ms, inclusive' },
            to: { type: 'string', minLength: 1, description: 'ISO-8601 date-time or epoch ms, inclusive' },
            limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
            page: { type: 'integer', minimum: 0, default: 0 },
          },
        },
        response: { 200: { type: 'array', items: documentSchema }, ...errors },
      },
      handler: async (request) => {
        const q = request.query as DocumentsQuery;
        const from = q.from === undefined ? undefined : parseTime(q.from, 'from');
        const to = q.to === undefined ? undefined : parseTime(q.to, 'to');
        // Read your writes: whatever was answered before this request is listed.
        await deps.recorder.flush();
        return deps.store.query({
          ...(q.documentType === undefined ? {} : { documentType: q.documentType }),
          ...(q.userName === undefined ? {} : { userName: q.userName }),
          ...(from === undefined ? {} : { from }),
          ...(to === undefined ? {} : { to }),
          limit: q.limit,
          page: q.page,
        });
      },
    },
    {
      method: 'GET',
      url: '/tracker-api/document',
      onRequest: requireAdmin,
      schema: {
        summary: 'One tracker document (administrators)',
        tags: ['tracker'],
        security: [{ bearer: [] }],
        querystring: {
          type: 'object',
          additionalProperties: false,
          required: ['internalId'],
          properties: { internalId: { type: 'string', minLength: 1 } },
        },
        response: { 200: documentSchema, ...errors },
      },
      handler: async (request) => {
        const { internalId } = request.query as { internalId: string };
        await deps.recorder.flush();
        const doc = await deps.store.get(internalId);
        if (!doc) throw new TrackerDocumentNotFoundError(`no tracker document with internalId ${internalId}`);
        return doc;
      },
    },
  ];
}

/** An ISO-8601 date-time or epoch milliseconds; 400 naming the parameter otherwise. */
export function parseTime(value: string, field: string): number {
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms)) {
    throw new ValidationError(
      `querystring parameter "${field}" must be an ISO-8601 date-time or epoch milliseconds`,
    );
  }
  return ms;
}

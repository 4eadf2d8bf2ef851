import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Storage } from '../storage/types.js';

export const errorSchema = {
  type: 'object',
  properties: { message: { type: 'string' }, code: { type: 'string' } },
  required: ['message', 'code'],
} as const;

/** `GET /health`, `GET /metrics`, `GET /openapi.json`. */
export function registerCoreRoutes(http: FastifyInstance, storage: Storage, metrics: Registry): void {
  http.route({
    method: 'GET',
    url: '/health',
    schema: {
      summary: 'Liveness and storage readiness',
      tags: ['runtime'],
      response: {
        200: {
          type: 'object',
          properties: { status: { type: 'string' }, storage: { type: 'string' } },
        },
        503: {
          type: 'object',
          properties: { status: { type: 'string' }, storage: { type: 'string' } },
        },
      },
    },
    handler: async (_request, reply) => {
      const ok = storage.status === 'open';
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'unavailable', storage: storage.status });
    },
  });

  http.route({
    method: 'GET',
    url: '/metrics',
    schema: {
      summary: 'Prometheus metrics (text exposition format)',
      tags: ['runtime'],
      response: { 200: { type: 'string' } },
    },
    handler: async (_request, reply) => {
      const text = await metrics.metrics();
      // Always text: the Prometheus format is not negotiated.
      reply.serializer((p: unknown) => p as string);
      return reply.type(metrics.contentType).send(text);
    },
  });

  http.route({
    method: 'GET',
    url: '/openapi.json',
    schema: { hide: true },
    handler: async (_request, reply) => {
      reply.serializer((p: unknown) => JSON.stringify(p));
      return reply.type('application/json; charset=utf-8').send(http.swagger());
    },
  });
}

import type { FastifyRequest } from 'fastify';
import type { JunctionApp } from '../../../core/plugins/types.js';
import type { FluxEngine } from '../engine/types.js';
import type { FluxAccess } from './access.js';
import { requireTags } from './params.js';
import { contextIdParam, errorResponses, messageSchema, optionalBearer, tagParam } from './schemas.js';

type TagQuery = { contextId: number; tag: string[] };

const tagQuery = {
  type: 'object',
  required: ['contextId', 'tag'],
  properties: { contextId: contextIdParam, tag: tagParam },
} as const;

/** `POST`/`PUT /flux-api/context/tag` add tags, `DELETE` removes them. */
export function registerTagRoutes(app: JunctionApp, engine: FluxEngine, access: FluxAccess): void {
  const add = async (request: FastifyRequest) => {
    const { contextId, tag } = request.query as TagQuery;
    const tags = requireTags(tag);
    await access.authorize(request, () => engine.accessOf({ contextId }));
    await engine.addTags(contextId, tags);
    return { message: `Tags added to context ${contextId}: ${tags.join(', ')}` };
  };
  for (const method of ['POST', 'PUT'] as const) {
    app.route({
      method,
      url: '/flux-api/context/tag',
      schema: {
        summary: 'Add tags to a context',
        tags: ['flux'],
        security: optionalBearer,
        querystring: tagQuery,
        response: { 200: messageSchema, ...errorResponses },
      },
      handler: add,
    });
  }

  app.route({
    method: 'DELETE',
    url: '/flux-api/context/tag',
    schema: {
      summary: 'Remove tags from a context',
      tags: ['flux'],
      security: optionalBearer,
      querystring: tagQuery,
      response: { 200: messageSchema, ...errorResponses },
    },
    handler: async (request: FastifyRequest) => {
      const { contextId, tag } = request.query as TagQuery;
      const tags = requireTags(tag);
      await access.authorize(request, () => engine.accessOf({ contextId }));
      await engine.removeTags(contextId, tags);
      return { message: `Tags removed from context ${contextId}: ${tags.join(', ')}` };
    },
  });
}

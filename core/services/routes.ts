import type { FastifyInstance } from 'fastify';
import { errorSchema } from '../http/core-routes.js';
import { PackageNotFoundError } from './errors.js';
import { aliasSchema } from './manifest.js';
import type { PackageInfo } from './types.js';

/** The alias as answered: package.yaml's schema, without defaults or patterns. */
const aliasAnswer = {
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(aliasSchema.properties).map(([k, v]) => {
      const { default: _d, pattern: _p, ...rest } = v as Record<string, unknown>;
      return [k, rest];
    }),
  ),
  required: ['url', 'service', 'secured', 'logToTracker'],
};

export const packageInfoSchema = {
  type: 'object',
  required: ['name', 'version', 'status', 'services', 'aliases', 'workflows', 'errors', 'deployedAt'],
  properties: {
    name: { type: 'string' },
    version: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['deployed', 'failed'] },
    services: { type: 'array', items: { type: 'string' } },
    aliases: { type: 'array', items: aliasAnswer },
    workflows: { type: 'array', items: { type: 'string' } },
    errors: { type: 'array', items: { type: 'string' } },
    deployedAt: { type: ['string', 'null'], format: 'date-time' },
  },
} as const;

export interface PackageSource {
  packages(): PackageInfo[];
  info(name: string): PackageInfo | undefined;
}

/** `GET /packages` and `GET /packages/{name}`: what is deployed, and what failed to load and why. */
export function registerPackageRoutes(http: FastifyInstance, registry: PackageSource): void {
  http.route({
    method: 'GET',
    url: '/packages',
    schema: {
      summary: 'Deployed packages: services, aliases, workflows and load errors',
      tags: ['runtime'],
      response: {
        200: {
          type: 'object',
          required: ['packages'],
          properties: { packages: { type: 'array', items: packageInfoSchema } },
        },
      },
    },
    handler: async () => ({ packages: registry.packages() }),
  });

  http.route({
    method: 'GET',
    url: '/packages/:name',
    schema: {
      summary: 'One package: services, aliases, workflows and load errors',
      tags: ['runtime'],
      params: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string', maxLength: 200 } },
      },
      response: { 200: packageInfoSchema, 404: errorSchema },
    },
    handler: async (request) => {
      const { name } = request.params as { name: string };
      const info = registry.info(name);
      if (!info) throw new PackageNotFoundError(`package ${name} is not deployed`);
      return info;
    },
  });
}

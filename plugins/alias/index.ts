import type { RouteOptions } from 'fastify';
import type { JunctionApp, JunctionPlugin } from '../../core/index.js';
import { errorSchema } from '../../core/index.js';
import { AUTH_VERIFIER, type BearerVerifier } from '../auth/types.js';
import { TRACKER_RECORDER, type TrackerRecorder } from '../tracker/types.js';
import type { CompiledAlias } from './compile.js';
import { AliasHandler } from './handler.js';
import { AliasTable } from './table.js';

/**
 * The built-in `alias` plugin (docs/aliases.md): serves every alias of every deployed package
 * under `/api`. Fastify cannot add routes once it is ready, so the plugin owns catch-all routes
 * under `/api` and routes requests with its own router, rebuilt on every deploy.
 */
export function createAliasPlugin(): JunctionPlugin {
  let app: JunctionApp | undefined;
  let table: AliasTable | undefined;
  let verifier: BearerVerifier | undefined;
  let tracker: TrackerRecorder | undefined;
  let started = false;

  // Resolved lazily: packages are deployed (and their aliases prepared) before plugins start,
  // and the auth plugin registers its verifier during its own `register`.
  const resolveVerifier = (): BearerVerifier | undefined => {
    if (!verifier && app?.container.isRegistered(AUTH_VERIFIER, true)) {
      verifier = app.container.resolve<BearerVerifier>(AUTH_VERIFIER);
    }
    return verifier;
  };

  const warnUntracked = (aliases: CompiledAlias[]): void => {
    if (!started || tracker) return;
    for (const alias of aliases) {
      if (!alias.logToTracker) continue;
      app?.logger.warn(
        `alias ${alias.spec.url} of package "${alias.packageName}" has logToTracker, but the tracker ` +
          'plugin is not loaded: its calls are not tracked',
      );
    }
  };

  return {
    name: 'alias',
    register(junction) {
      app = junction;
      verifier = undefined;
      tracker = undefined;
      started = false;
      table = new AliasTable(
        resolveVerifier,
        junction.logger.child({ plugin: 'alias' }),
        warnUntracked,
        () => junction.mode === 'check',
      );
      junction.services.addDeployHook(table);
      const handler = new AliasHandler({
        table,
        services: junction.services,
        clock: junction.clock,
        logger: junction.logger,
        verifier: resolveVerifier,
        tracker: () => tracker,
      });
      for (const url of ['/api', '/api/*']) {
        junction.route(aliasRoute(url, ['GET', 'HEAD'], false, handler));
        junction.route(aliasRoute(url, ['DELETE', 'OPTIONS', 'PATCH', 'POST', 'PUT'], true, handler));
      }
    },
    start() {
      // The tracker is listed after the alias plugin; every plugin has registered by now.
      if (app!.container.isRegistered(TRACKER_RECORDER, true)) {
        tracker = app!.container.resolve<TrackerRecorder>(TRACKER_RECORDER);
      }
      resolveVerifier();
      started = true;
      warnUntracked(table!.aliases());
    },
    stop() {
      started = false;
    },
  };
}

function aliasRoute(url: string, methods: string[], withBody: boolean, handler: AliasHandler): RouteOptions {
  return {
    method: methods,
    url,
    exposeHeadRoute: false,
    schema: {
      summary: 'Calls the service of the alias that serves this URL (docs/aliases.md)',
      tags: ['alias'],
      ...(url.endsWith('*')
        ? { params: { type: 'object', properties: { '*': { type: 'string' } } } }
        : { params: { type: 'object', properties: {} } }),
      querystring: {
        type: 'object',
        additionalProperties: true,
        description: 'Inputs of the service; a repeated parameter is an array',
      },
      ...(withBody
        ? { body: { description: 'A JSON object or form whose fields are inputs of the service' } }
        : {}),
      response: {
        200: { description: 'The output of the service (any JSON value)' },
        '4xx': errorSchema,
        '5xx': errorSchema,
      },
    },
    handler: handler.handle,
  };
}

const plugin: JunctionPlugin = createAliasPlugin();

export default plugin;

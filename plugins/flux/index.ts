import type { JunctionApp, JunctionPlugin } from '../../core/plugins/types.js';
import { PluginError, UnavailableError } from '../../core/errors.js';
import { AUTH_VERIFIER, type BearerVerifier } from '../auth/types.js';
import { FluxAccess, registerFluxApi } from './api/index.js';
import type { FluxEngine } from './engine/types.js';

/** An engine with its lifecycle, as the plugin drives it. */
export interface FluxEngineHost {
  readonly engine: FluxEngine;
  /** Loads waiting contexts and arms their timers (overdue ones fire now). */
  start(): Promise<void>;
  /** Stops timers and waits for steps in flight. */
  stop(): Promise<void>;
}

/** Builds the engine during `register` (so its deploy hook sees the first deploy). */
export type FluxEngineFactory = (app: JunctionApp) => FluxEngineHost | Promise<FluxEngineHost>;

/**
 * The built-in `flux` plugin: creates the workflow engine, serves /flux-api over it and starts and
 * stops it with the app.
 *
 * It does not list `auth` in `dependsOn`, so a server without the auth plugin still runs
 * workflows: every caller is then anonymous (docs/flux-api.md, "Authentication"). The verifier is
 * resolved in `start`, after every plugin registered, so the list order does not matter either;
 * `flux.require-auth` without the auth plugin is a start-up error.
 */
export function createFluxPlugin(factory: FluxEngineFactory): JunctionPlugin {
  // One app at a time: `register` (re)sets this state, `start`/`stop` use it.
  let app: JunctionApp | undefined;
  let host: FluxEngineHost | undefined;
  let verifier: BearerVerifier | undefined;
  let started = false;
  return {
    name: 'flux',
    async register(junction) {
      app = junction;
      verifier = undefined;
      started = false;
      const engineHost = await factory(junction);
      host = engineHost;
      const access = new FluxAccess(junction.config.flux['require-auth'], () => verifier);
      registerFluxApi(junction, engineHost.engine, access);
      junction.services.provideHostFunction('flux.sendEvent', (args, caller) =>
        engineHost.engine.sendEvent({ ...sendEventArgs(args), user: caller.user }),
      );
    },
    async start() {
      if (!app || !host) throw new PluginError('the flux plugin was not registered');
      // Every plugin has registered by now: the verifier is there if the auth plugin is loaded.
      if (app.container.isRegistered(AUTH_VERIFIER, true)) {
        verifier = app.container.resolve<BearerVerifier>(AUTH_VERIFIER);
      } else if (app.config.flux['require-auth']) {
        throw new PluginError('flux.require-auth is true but the auth plugin is not loaded');
      }
      await host.start();
      started = true;
    },
    async stop() {
      if (host && started) await host.stop();
      started = false;
    },
  };
}

/** `ctx.flux.sendEvent({event, input, tags, contextId})` from a service: checked like the API. */
function sendEventArgs(args: unknown): {
  event: string;
  input?: Record<string, unknown>;
  tags?: string[];
  contextId?: number;
} {
  const a = (args ?? {}) as Record<string, unknown>;
  const bad = (what: string) => new PluginError(`ctx.flux.sendEvent: ${what}`);
  if (typeof a.event !== 'string' || a.event.length === 0) throw bad('"event" must be a non-empty string');
  if (a.input !== undefined && (typeof a.input !== 'object' || a.input === null || Array.isArray(a.input)))
    throw bad('"input" must be an object');
  if (a.tags !== undefined && (!Array.isArray(a.tags) || a.tags.some((t) => typeof t !== 'string')))
    throw bad('"tags" must be an array of strings');
  if (a.contextId !== undefined && (!Number.isSafeInteger(a.contextId) || (a.contextId as number) < 1))
    throw bad('"contextId" must be a positive integer');
  return {
    event: a.event,
    ...(a.input === undefined ? {} : { input: a.input as Record<string, unknown> }),
    ...(a.tags === undefined ? {} : { tags: a.tags as string[] }),
    ...(a.contextId === undefined ? {} : { contextId: a.contextId as number }),
  };
}

/** Until the engine ships in this build, every engine call answers 503. */
const unavailable: FluxEngineFactory = () => {
  const fail = () => Promise.reject(new UnavailableError('the workflow engine is not available'));
  const engine: FluxEngine = {
    execute: fail,
    sendEvent: fail,
    terminate: fail,
    getContext: fail,
    listContexts: fail,
    getStateContext: fail,
    addTags: fail,
    removeTags: fail,
    getDefinition: fail,
    accessOf: fail,
  };
  return { engine, start: async () => {}, stop: async () => {} };
};

export default createFluxPlugin(unavailable);

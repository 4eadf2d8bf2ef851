import type { JunctionApp, JunctionPlugin } from '../../core/plugins/types.js';
import { PluginError } from '../../core/errors.js';
import { AUTH_VERIFIER, type BearerVerifier } from '../auth/types.js';
import { FluxAccess, registerFluxApi } from './api/index.js';
import type { FluxEngineOptions } from './engine/engine.js';
import { createFluxEngine } from './engine/host.js';
import type { FluxEngine } from './engine/types.js';

/** An engine with its lifecycle, as the plugin drives it. */
export interface FluxEngineHost {
  readonly engine: FluxEngine;
  /** Loads waiting contexts and arms their timers (overdue ones fire now). */
  start(): Promise<void>;
  /** Stops timers and waits for steps in flight. */
  stop(): Promise<void>;
}

/**
 * Builds the engine during `register`, installing its deploy hook and `ctx.flux.sendEvent` (so it
 * sees the first deploy).
 */
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

/**
 * Contexts the engine works on at once for due timers, broadcast events and recovery. Each of
 * them waits for a durable group commit, so this bounds that work to about `concurrency / commit
 * latency` transitions per second: at the engine's default of 32, timers due at 2,000/s fell
 * 180 ms (p50) behind on the benchmark machine; at 256, 14 ms (docs/performance.md).
 */
const ENGINE_CONCURRENCY = 256;

/** The engine of this build, on the `flux` store of the app's storage (`options`: benchmarks). */
export function createEngineHost(app: JunctionApp, options: FluxEngineOptions = {}): FluxEngineHost {
  const handle = createFluxEngine(app, { concurrency: ENGINE_CONCURRENCY, ...options });
  return { engine: handle.engine, start: handle.start, stop: handle.stop };
}

export default createFluxPlugin(createEngineHost);

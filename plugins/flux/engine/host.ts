/**
 * The engine built from a plugin's `app`: its dependencies taken from what the app offers, its
 * deploy hook and `ctx.flux.sendEvent` installed at once (call during `register`, so the first
 * deploy of the packages is seen), `start` and `stop` for the plugin's own.
 */
import type { JunctionApp } from '../../../core/plugins/types.js';
import { AUTH_VERIFIER, type BearerVerifier } from '../../auth/types.js';
import type { AccessCheck } from './access-rule.js';
import { FluxEngineImpl, type FluxEngineOptions } from './engine.js';

export interface FluxEngineHandle {
  readonly engine: FluxEngineImpl;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createFluxEngine(app: JunctionApp, options: FluxEngineOptions = {}): FluxEngineHandle {
  const engine = new FluxEngineImpl({
    services: app.services,
    store: app.storage.store('flux'),
    clock: app.clock,
    logger: app.logger.child({ component: 'flux' }),
    metrics: app.metrics,
    events: app.events,
    allows: verifierCheck(app),
    options: { timezone: app.config.server.timezone, ...options },
  });
  engine.install();
  return { engine, start: () => engine.start(), stop: () => engine.stop() };
}

/**
 * The auth plugin's rule check, looked up on first use (plugins register in any order). Without
 * the auth plugin every caller is anonymous and no rule is satisfied, as in the API's own checks.
 */
function verifierCheck(app: JunctionApp): AccessCheck {
  let verifier: BearerVerifier | null | undefined;
  return (user, rule) => {
    verifier ??= app.container.isRegistered(AUTH_VERIFIER, true)
      ? app.container.resolve<BearerVerifier>(AUTH_VERIFIER)
      : null;
    return user !== undefined && verifier !== null && verifier.allows(user, rule);
  };
}

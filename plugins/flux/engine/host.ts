/**
 * The engine built from a plugin's `app`: its dependencies taken from what the app offers, its
 * deploy hook and `ctx.flux.sendEvent` installed at once (call during `register`, so the first
 * deploy of the packages is seen), `start` and `stop` for the plugin's own.
 */
import type { JunctionApp } from '../../../core/plugins/types.js';
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
    options: { timezone: app.config.server.timezone, ...options },
  });
  engine.install();
  return { engine, start: () => engine.start(), stop: () => engine.stop() };
}

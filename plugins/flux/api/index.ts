import type { JunctionApp } from '../../../core/plugins/types.js';
import type { FluxEngine } from '../engine/types.js';
import type { FluxAccess } from './access.js';
import { registerReadRoutes } from './routes-read.js';
import { registerRunRoutes } from './routes-run.js';
import { registerTagRoutes } from './routes-tags.js';

export { FluxAccess } from './access.js';

/** Every /flux-api route (SEED-SPEC 4.3, CONTRACT §5) over `engine`. Call during `register`. */
export function registerFluxApi(app: JunctionApp, engine: FluxEngine, access: FluxAccess): void {
  registerRunRoutes(app, engine, access);
  registerReadRoutes(app, engine, access);
  registerTagRoutes(app, engine, access);
}

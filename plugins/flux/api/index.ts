import type { JunctionApp } from '../../../core/plugins/types.js';
import type { AccessRule } from '../../auth/types.js';
import type { FluxDefinitionView, FluxEngine } from '../engine/types.js';
import type { FluxAccess } from './access.js';
import { registerReadRoutes } from './routes-read.js';
import { registerRunRoutes } from './routes-run.js';
import { registerTagRoutes } from './routes-tags.js';

export { FluxAccess } from './access.js';

/** A live workflow of one package, as the access checks need it. */
export interface LiveWorkflow {
  access?: AccessRule;
  definition: FluxDefinitionView;
}

/**
 * The live workflow `fluxName` of package `packageName`, or undefined. The FluxEngine contract
 * looks a workflow up by name alone (the first package having it), which cannot tell the rule of
 * `/flux-api/{package}/execute` when two packages share a workflow name.
 */
export type WorkflowLookup = (packageName: string, fluxName: string) => LiveWorkflow | undefined;

/** Every /flux-api route (SEED-SPEC 4.3, CONTRACT §5) over `engine`. Call during `register`. */
export function registerFluxApi(
  app: JunctionApp,
  engine: FluxEngine,
  access: FluxAccess,
  workflow: WorkflowLookup,
): void {
  registerRunRoutes(app, engine, access, workflow);
  registerReadRoutes(app, engine, access);
  registerTagRoutes(app, engine, access);
}

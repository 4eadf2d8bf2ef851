import type { FastifyInstance, RouteOptions } from 'fastify';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DependencyContainer } from 'tsyringe';
import type { Clock } from '../clock.js';
import type { JunctionConfig } from '../config/schema.js';
import type { JunctionEvents } from '../events.js';
import type { LifecycleState } from '../lifecycle.js';
import type { ServiceRegistry } from '../services/types.js';
import type { Storage } from '../storage/types.js';

/**
 * What a plugin's `register` receives (CONTRACT §6). The built-in plugins use this and nothing
 * more. Routes and hooks may only be added during `register`; after start they are refused.
 */
export interface JunctionApp {
  /** The app's own tsyringe container: core services and whatever plugins register. */
  readonly container: DependencyContainer;
  readonly config: JunctionConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly storage: Storage;
  readonly metrics: Registry;
  readonly services: ServiceRegistry;
  readonly events: JunctionEvents;
  readonly state: LifecycleState;
  /**
   * `serve` normally; `check` when `junction check` registers the plugins only to validate the
   * configuration and packages (on throw-away storage): do nothing with effects outside the app.
   */
  readonly mode: 'serve' | 'check';
  /** The Fastify instance, for hooks, decorators and content-type parsers. */
  readonly http: FastifyInstance;
  /** Adds a route; every route declares JSON schemas for what it takes and answers. */
  route(options: RouteOptions): void;
}

export interface JunctionPlugin<Options = Record<string, unknown>> {
  name: string;
  /** Plugins that must be listed (and so registered) before this one. */
  dependsOn?: string[];
  register(app: JunctionApp, options: Options): void | Promise<void>;
  start?(): void | Promise<void>;
  stop?(): void | Promise<void>;
}

/**
 * Names under which the core registers its services in the app's tsyringe container. Plugins
 * resolve them (`app.container.resolve(Tokens.Storage)`) and register their own under
 * `<plugin>.<name>` (e.g. `auth.verifier`).
 */
export const Tokens = {
  App: 'junction.app',
  Config: 'junction.config',
  Logger: 'junction.logger',
  Clock: 'junction.clock',
  Storage: 'junction.storage',
  Metrics: 'junction.metrics',
  Http: 'junction.http',
  Events: 'junction.events',
  SandboxPool: 'junction.sandboxPool',
  ServiceRegistry: 'junction.serviceRegistry',
} as const;

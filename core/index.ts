/** The public API of Junction for plugin authors and embedders. */
export { buildApp, Junction, VERSION, type BuildOptions, type StartOptions } from './app.js';
export { FakeClock, SystemClock, type Clock, type TimerHandle } from './clock.js';
export {
  ConfigLoadError,
  loadConfig,
  defaultConfig,
  type LoadOptions,
  type LoadedConfig,
} from './config/load.js';
export type { JunctionConfig, PluginEntry, UserEntry } from './config/schema.js';
export * from './errors.js';
export { JunctionEvents, type JunctionEventMap } from './events.js';
export { errorSchema } from './http/core-routes.js';
export type { LifecycleState } from './lifecycle.js';
export type { JunctionApp, JunctionPlugin } from './plugins/types.js';
export { hashPassword, verifyPassword } from './password.js';
export * from './services/types.js';
export { createLevelStorage, createMemoryStorage } from './storage/level-storage.js';
export type { BatchOp, Range, Storage, Store, WriteOptions } from './storage/types.js';
export { Tokens } from './tokens.js';

/**
 * The sandbox: where package code runs. Implemented by a piscina pool of worker threads, each
 * holding one isolated-vm isolate per package version (core/sandbox/pool.ts, worker code in
 * core/sandbox/worker/). Nothing here runs user code on the main thread or in Node's `vm`.
 */
import type { Logger } from 'pino';
import type { JunctionConfig } from '../config/schema.js';
import type { UserRef } from '../services/types.js';

/** One ES module of a package: `path` relative to the package's `code/` folder, e.g. `approval/Checks.js`. */
export interface ModuleSource {
  path: string;
  source: string;
}

/**
 * A package version's code. `key` identifies the version (`<name>@<deployId>`): workers cache
 * compiled modules under it, so a warm call compiles nothing; a new deploy is a new key.
 */
export interface PackageCode {
  key: string;
  name: string;
  modules: ModuleSource[];
}

export interface ModuleExports {
  path: string;
  /** Names of the exported functions (the module's services). */
  functions: string[];
}

export interface SandboxCall {
  /** Which package version; the sandbox asks `SandboxHost.code(key)` when a worker lacks it. */
  key: string;
  /** Module path relative to `code/`, e.g. `approval/Checks.js`. */
  module: string;
  /** Exported function name. */
  fn: string;
  /** JSON-compatible; crosses into the isolate as a copy. */
  input: unknown;
  user: UserRef;
  /** `ctx.invoke` nesting depth of this call (0 at the top). */
  depth: number;
}

export interface SandboxEvaluation {
  key: string;
  /** JavaScript expressions, each evaluated with the members of `scope` as variables. */
  expressions: string[];
  scope: Record<string, unknown>;
}

/**
 * What the sandbox needs from the host. Host functions are called from inside an isolate through
 * `ctx` (worker → main thread → worker, asynchronously).
 */
export interface SandboxHost {
  /** The code of a package version (undefined once it is no longer deployed). */
  code(key: string): PackageCode | undefined;
  /** `ctx.log.info|warn|error(...)` of a call. */
  log(level: 'info' | 'warn' | 'error', message: string, caller: { package: string; user: UserRef }): void;
  /** `ctx.invoke`: a nested call, already counting depth (`caller.depth + 1`). */
  invoke(
    serviceName: string,
    input: unknown,
    caller: { package: string; user: UserRef; depth: number },
  ): Promise<unknown>;
  /** `ctx.http.fetch` and other host functions (`flux.sendEvent`...) by name. */
  call(name: string, args: unknown, caller: { package: string; user: UserRef }): Promise<unknown>;
}

export interface Sandbox {
  /**
   * Compiles a package version in a worker (without running any service) and lists each
   * module's exported functions. Rejects with JCT_PACKAGE_INVALID naming the module on a syntax
   * error, a bad import or a top-level throw.
   */
  inspect(code: PackageCode): Promise<ModuleExports[]>;
  /** Runs one exported function; resolves with its JSON output. */
  call(call: SandboxCall): Promise<unknown>;
  evaluate(evaluation: SandboxEvaluation): Promise<unknown[]>;
  /** Drops cached isolates of a version that is no longer deployed (once its calls finish). */
  forget(key: string): void;
  close(): Promise<void>;
}

/**
 * What `createSandbox` needs: the `sandbox.*` configuration values (documented in
 * core/config/schema.ts and docs/configuration.md), the host and a logger.
 */
export interface SandboxOptions extends Readonly<JunctionConfig['sandbox']> {
  host: SandboxHost;
  logger: Logger;
  /** Most jobs sent to a worker as one task (default: no limit). 1 turns micro-batching off (bench). */
  maxBatchSize?: number;
}

/**
 * The service registry: deployed packages, their services and the hooks through which plugins take
 * their part of a package (aliases, workflows). Implemented in core/services/registry.ts; the
 * sandbox that runs the code is core/sandbox/.
 */

/** A user as services and workflows see it (`ctx.user`). */
export interface UserRef {
  username: string;
  groups: string[];
}

export const ANONYMOUS: UserRef = Object.freeze({ username: 'Anonymous', groups: [] }) as UserRef;

/** One alias of package.yaml (CONTRACT §3), with defaults applied. */
export interface AliasSpec {
  url: string;
  service: string;
  method?: string;
  parameters?: string[];
  secured: boolean;
  users?: string[];
  groups?: string[];
  runAs?: string;
  logToTracker: boolean;
  documentType?: string;
}

/** A package version being deployed, as deploy hooks see it. */
export interface PackageSource {
  name: string;
  version: string;
  /** Absolute folder of the package. */
  dir: string;
  /** Increases with every deploy of any package; identifies this version. */
  deployId: number;
  aliases: AliasSpec[];
  /** `<className>.<methodName>` of every exported function. */
  services: string[];
  /** Files a hook asked for (`DeployHook.files`), path relative to the package folder. */
  files: { path: string; text: string }[];
}

/**
 * A plugin's part in deploying packages. For each new package version the registry calls
 * `prepare` of every hook; if any throws, the deploy fails with that message, nothing is committed
 * and the previous version (if any) keeps serving. Otherwise every hook's `commit` runs and the
 * version goes live. `remove` runs when the package folder is removed.
 */
export interface DeployHook<T = unknown> {
  name: string;
  /** Files under the package folder this hook reads, e.g. `{ dir: 'flux', suffix: '.flux.yaml' }`. */
  files?: { dir: string; suffix: string };
  prepare(pkg: PackageSource): T | Promise<T>;
  commit(pkg: PackageSource, prepared: T): void;
  remove(packageName: string): void;
}

export interface PackageInfo {
  name: string;
  version: string | null;
  /** `deployed`: serving (maybe an older version when `errors` is not empty); `failed`: never loaded. */
  status: 'deployed' | 'failed';
  services: string[];
  aliases: AliasSpec[];
  workflows: string[];
  errors: string[];
  deployedAt: string | null;
}

export interface InvokeOptions {
  /** `ctx.user`; Anonymous when unset. */
  user?: UserRef;
  /** The calling package: resolves unqualified service names. */
  package?: string;
  /** Nesting depth of `ctx.invoke` (0 for a top-level call). */
  depth?: number;
}

export interface ServiceRegistry extends HostFunctions {
  /**
   * Runs `serviceName` (`pkg/class.method`, or `class.method` inside `options.package`) in the
   * sandbox and resolves with its JSON output. Errors: JCT_SERVICE_NOT_FOUND, JCT_SANDBOX_TIMEOUT,
   * JCT_SANDBOX_MEMORY, or the service's own error (message, and `status` if it set one).
   */
  invoke(serviceName: string, input: unknown, options?: InvokeOptions): Promise<unknown>;
  /**
   * Evaluates JavaScript expressions in the sandbox of `packageName` with the members of `scope`
   * as variables (e.g. `vars`, `event`, `output`); resolves with one result per expression.
   */
  evaluate(packageName: string, expressions: string[], scope: Record<string, unknown>): Promise<unknown[]>;
  addDeployHook(hook: DeployHook): void;
  packages(): PackageInfo[];
  hasPackage(name: string): boolean;
}

/**
 * A host function that sandboxed code reaches through `ctx` (e.g. `flux.sendEvent`, filled by the
 * flux plugin). `caller` is the package and user of the calling service.
 */
export type HostHandler = (args: unknown, caller: { package: string; user: UserRef }) => Promise<unknown>;

export interface HostFunctions {
  provideHostFunction(name: string, handler: HostHandler): void;
}

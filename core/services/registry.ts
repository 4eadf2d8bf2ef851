import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import type { Clock } from '../clock.js';
import type { JunctionConfig } from '../config/schema.js';
import type { JunctionEvents } from '../events.js';
import type { Sandbox } from '../sandbox/types.js';
import { Tokens } from '../tokens.js';
import { InvokeDepthError } from '../sandbox/errors.js';
import { PackageNotFoundError, ServiceNotFoundError } from './errors.js';
import { PackageDeployer } from './deployer.js';
import { RegistryHost } from './host.js';
import { VersionTable } from './versions.js';
import { PackageWatcher } from './watcher.js';
import {
  ANONYMOUS,
  type DeployHook,
  type HostHandler,
  type InvokeOptions,
  type PackageInfo,
  type ServiceRegistry,
} from './types.js';

export { ServiceNotFoundError } from './errors.js';

/**
 * The registry of deployed packages (docs/packages.md). Loads every folder of `servicesDir` at
 * start, redeploys on change (PackageWatcher), runs services in the sandbox, and lets plugins
 * take their part of each package through deploy hooks. Deploys run one at a time, so hooks see
 * a consistent set of packages; calls never wait for a deploy.
 */
@injectable()
export class PackageRegistry implements ServiceRegistry {
  /** What the sandbox calls back into (bound to the sandbox's host relay by the app). */
  readonly host: RegistryHost;
  private readonly hooks: DeployHook[] = [];
  private readonly versions: VersionTable;
  private readonly logger: Logger;
  private readonly watcher: PackageWatcher;
  private readonly deployer: PackageDeployer;
  private running = false;

  constructor(
    @inject(Tokens.Config) private readonly config: JunctionConfig,
    @inject(Tokens.Logger) logger: Logger,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Events) private readonly events: JunctionEvents,
    @inject(Tokens.SandboxPool) private readonly sandbox: Sandbox,
  ) {
    this.logger = logger.child({ component: 'services' });
    this.versions = new VersionTable((key) => this.sandbox.forget(key));
    this.host = new RegistryHost(
      { code: (key) => this.versions.code(key), invoke: (n, i, o) => this.invoke(n, i, o) },
      this.logger,
    );
    this.deployer = new PackageDeployer({
      servicesDir: config.servicesDir,
      sandbox,
      versions: this.versions,
      hooks: this.hooks,
      events,
      clock,
      logger: this.logger,
    });
    this.watcher = new PackageWatcher({
      dir: config.servicesDir,
      debounceMs: config.hotDeploy.debounceMs,
      clock,
      logger: this.logger,
      onChange: (folder) => void this.reload(folder),
      onRescan: () => void this.rescan(),
    });
  }

  /** Deploys every package folder, then (with `hotDeploy.enabled`) watches for changes. */
  async start(): Promise<void> {
    this.running = true;
    if (this.config.hotDeploy.enabled) this.watcher.start();
    await this.rescan();
    const live = this.versions.liveNames().length;
    this.logger.info({ dir: this.config.servicesDir }, `${live} package(s) deployed`);
  }

  /** Stops watching, lets a running deploy finish, and closes the sandbox. */
  async stop(): Promise<void> {
    this.running = false;
    this.watcher.close();
    await this.deployer.stop();
    await this.sandbox.close();
  }

  /**
   * Loads every package and runs the hooks' `prepare` without committing anything; returns every
   * problem found (`junction check`). Nothing is deployed.
   */
  check(): Promise<string[]> {
    return this.deployer.check();
  }

  /**
   * Brings every folder up to date: new ones deploy, changed ones redeploy, missing ones
   * undeploy. Resolves when done (the watcher calls it; so may tests).
   */
  rescan(): Promise<void> {
    return this.deployer.rescan();
  }

  /** Brings one package folder up to date (deploy, redeploy or undeploy); resolves when done. */
  reload(folder: string): Promise<void> {
    return this.deployer.reload(folder);
  }

  invoke(serviceName: string, input: unknown, options: InvokeOptions = {}): Promise<unknown> {
    const depth = options.depth ?? 0;
    if (depth > this.config.sandbox.maxInvokeDepth) {
      return Promise.reject(
        new InvokeDepthError(
          `calling ${serviceName}: ctx.invoke nests ${depth} deep, more than sandbox.maxInvokeDepth (${this.config.sandbox.maxInvokeDepth})`,
        ),
      );
    }
    const slash = serviceName.indexOf('/');
    const packageName = slash >= 0 ? serviceName.slice(0, slash) : options.package;
    const local = slash >= 0 ? serviceName.slice(slash + 1) : serviceName;
    if (packageName === undefined) {
      return Promise.reject(
        new ServiceNotFoundError(`service ${serviceName}: name the package (<package>/${serviceName})`),
      );
    }
    const pkg = this.versions.get(packageName);
    const target = pkg?.services.get(local);
    if (!pkg || !target) {
      const why = pkg
        ? `package ${packageName} has no service ${local}`
        : `package ${packageName} is not deployed`;
      return Promise.reject(new ServiceNotFoundError(`service ${packageName}/${local} not found: ${why}`));
    }
    const user = options.user ?? ANONYMOUS;
    return this.versions.run(pkg, () =>
      this.sandbox.call({ key: pkg.key, module: target.module, fn: target.fn, input, user, depth }),
    );
  }

  evaluate(packageName: string, expressions: string[], scope: Record<string, unknown>): Promise<unknown[]> {
    const pkg = this.versions.get(packageName);
    if (!pkg) return Promise.reject(new PackageNotFoundError(`package ${packageName} is not deployed`));
    return this.versions.run(pkg, () => this.sandbox.evaluate({ key: pkg.key, expressions, scope }));
  }

  addDeployHook(hook: DeployHook): void {
    if (this.running) throw new Error(`deploy hook "${hook.name}" must be added while plugins register`);
    this.hooks.push(hook);
  }

  provideHostFunction(name: string, handler: HostHandler): void {
    this.host.provide(name, handler);
  }

  packages(): PackageInfo[] {
    return this.deployer.packages();
  }

  /** One package as `GET /packages/{name}` shows it; undefined when no such folder is known. */
  info(name: string): PackageInfo | undefined {
    return this.deployer.info(name);
  }

  hasPackage(name: string): boolean {
    return this.versions.get(name) !== undefined;
  }

  /** Keys of versions no longer live whose calls are still running. */
  drainingVersions(): string[] {
    return this.versions.draining();
  }
}

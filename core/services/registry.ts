import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { inject, injectable } from 'tsyringe';
import type { Clock } from '../clock.js';
import type { JunctionConfig } from '../config/schema.js';
import type { JunctionEvents } from '../events.js';
import type { Sandbox } from '../sandbox/types.js';
import { Tokens } from '../tokens.js';
import { InvokeDepthError } from '../sandbox/errors.js';
import { PackageNotFoundError, ServiceNotFoundError } from './errors.js';
import { commitHooks, prepareHooks } from './hooks.js';
import { RegistryHost } from './host.js';
import { loadPackage, type LoadedPackage } from './loader.js';
import { PACKAGE_NAME } from './manifest.js';
import { readPackageFolder } from './reader.js';
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

/** What the registry remembers of a package folder besides its live version. */
interface FolderState {
  /** Problems of the last deploy attempt (empty when it succeeded). */
  errors: string[];
  /** The version the last attempt read from package.yaml, if it got that far. */
  attemptedVersion: string | undefined;
  deployedAt: number | undefined;
}

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
  private readonly folders = new Map<string, FolderState>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly logger: Logger;
  private readonly watcher: PackageWatcher;
  private queue: Promise<void> = Promise.resolve();
  private deployCounter = 0;
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
    await this.queue;
    await this.sandbox.close();
  }

  /**
   * Loads every package and runs the hooks' `prepare` without committing anything; returns every
   * problem found (`junction check`). Nothing is deployed.
   */
  async check(): Promise<string[]> {
    const problems: string[] = [];
    for (const folder of await this.listFolders()) {
      const loaded = await this.load(folder);
      if (!loaded.pkg) {
        problems.push(...loaded.errors);
        continue;
      }
      this.versions.addCandidate(loaded.pkg);
      try {
        await prepareHooks(this.hooks, loaded.pkg);
      } catch (err) {
        problems.push(`${folder}: ${(err as Error).message}`);
      } finally {
        this.versions.discard(loaded.pkg.key);
      }
    }
    return problems;
  }

  /**
   * Brings every folder up to date: new ones deploy, changed ones redeploy, missing ones
   * undeploy. Resolves when done (the watcher calls it; so may tests).
   */
  async rescan(): Promise<void> {
    const present = await this.listFolders();
    const known = [...this.folders.keys()].filter((f) => !present.includes(f));
    await Promise.all([...present, ...known].map((f) => this.reload(f)));
  }

  /**
   * Brings one package folder up to date (deploy, redeploy or undeploy). Deploys run one at a
   * time; a reload asked for while one of the same folder is already waiting joins it.
   */
  reload(folder: string): Promise<void> {
    const waiting = this.pending.get(folder);
    if (waiting) return waiting;
    const run = this.queue.then(async () => {
      this.pending.delete(folder);
      try {
        await this.reloadNow(folder);
      } catch (err) {
        this.logger.error({ err, package: folder }, 'package reload failed unexpectedly');
      }
    });
    this.pending.set(folder, run);
    this.queue = run;
    return run;
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
    return [...this.folders.keys()].sort().map((name) => this.info(name)!);
  }

  /** One package as `GET /packages` shows it; undefined when no such folder is known. */
  info(name: string): PackageInfo | undefined {
    const state = this.folders.get(name);
    if (!state) return undefined;
    const pkg = this.versions.get(name);
    return {
      name,
      version: pkg?.version ?? state.attemptedVersion ?? null,
      status: pkg ? 'deployed' : 'failed',
      services: pkg ? [...pkg.services.keys()].sort() : [],
      aliases: pkg ? pkg.aliases.map((a) => ({ ...a })) : [],
      workflows: pkg ? [...pkg.workflows] : [],
      errors: [...state.errors],
      deployedAt: state.deployedAt === undefined ? null : new Date(state.deployedAt).toISOString(),
    };
  }

  hasPackage(name: string): boolean {
    return this.versions.get(name) !== undefined;
  }

  /** Keys of versions no longer live whose calls are still running. */
  drainingVersions(): string[] {
    return this.versions.draining();
  }

  private async reloadNow(folder: string): Promise<void> {
    const dir = join(this.config.servicesDir, folder);
    const isDir = await stat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) return this.undeploy(folder);

    const state = this.folders.get(folder) ?? {
      errors: [],
      attemptedVersion: undefined,
      deployedAt: undefined,
    };
    this.folders.set(folder, state);
    if (!PACKAGE_NAME.test(folder)) {
      return this.fail(folder, state, undefined, [folderNameProblem(folder)]);
    }
    let read;
    try {
      read = await readPackageFolder(dir, folder);
    } catch (err) {
      return this.fail(folder, state, undefined, [`${folder}: ${(err as Error).message}`]);
    }
    // Unchanged since it went live (a duplicate event, an editor's touch): nothing to do. A failed
    // folder is retried even unchanged, since what failed it (e.g. another package) may be gone.
    const live = this.versions.get(folder);
    if (live?.fingerprint === read.fingerprint && state.errors.length === 0) return;

    const deployId = ++this.deployCounter;
    const loaded = await loadPackage(read, deployId, this.sandbox);
    if (!loaded.pkg) {
      this.sandbox.forget(`${folder}@${deployId}`);
      return this.fail(folder, state, loaded.version, loaded.errors);
    }
    const pkg = loaded.pkg;
    this.versions.addCandidate(pkg);
    let prepared;
    try {
      prepared = await prepareHooks(this.hooks, pkg);
    } catch (err) {
      this.versions.discard(pkg.key);
      return this.fail(folder, state, pkg.version, [`${folder}: ${(err as Error).message}`]);
    }
    const commitProblems = commitHooks(prepared).map((p) => `${folder}: ${p}`);
    for (const p of commitProblems) this.logger.error({ package: folder }, p);
    this.versions.activate(pkg);
    Object.assign(state, {
      errors: commitProblems,
      attemptedVersion: pkg.version,
      deployedAt: this.clock.now(),
    });
    this.logger.info({ package: folder, version: pkg.version, deployId: pkg.deployId }, 'package deployed');
    this.events.emit('package.deployed', { name: folder, version: pkg.version, deployId: pkg.deployId });
  }

  private fail(folder: string, state: FolderState, version: string | undefined, errors: string[]): void {
    state.errors = errors;
    state.attemptedVersion = version;
    const serving = this.versions.get(folder);
    for (const e of errors) this.logger.error({ package: folder }, `package failed to deploy: ${e}`);
    if (serving)
      this.logger.warn({ package: folder, version: serving.version }, 'the previous version keeps serving');
    this.events.emit('package.failed', { name: folder, errors: [...errors] });
  }

  private undeploy(folder: string): void {
    if (!this.folders.delete(folder)) return;
    const removed: LoadedPackage | undefined = this.versions.remove(folder);
    if (!removed) return;
    for (const hook of this.hooks) {
      try {
        hook.remove(folder);
      } catch (err) {
        this.logger.error(
          { err, package: folder, hook: hook.name },
          'deploy hook failed to remove a package',
        );
      }
    }
    this.logger.info({ package: folder }, 'package undeployed');
    this.events.emit('package.undeployed', { name: folder });
  }

  /** Loads a folder as a new version for `check` (a failed load leaves nothing in the sandbox). */
  private async load(folder: string): Promise<{ pkg?: LoadedPackage; errors: string[] }> {
    if (!PACKAGE_NAME.test(folder)) return { errors: [folderNameProblem(folder)] };
    const deployId = ++this.deployCounter;
    try {
      const read = await readPackageFolder(join(this.config.servicesDir, folder), folder);
      const loaded = await loadPackage(read, deployId, this.sandbox);
      if (!loaded.pkg) this.sandbox.forget(`${folder}@${deployId}`);
      return loaded;
    } catch (err) {
      return { errors: [`${folder}: ${(err as Error).message}`] };
    }
  }

  /** Package folders in servicesDir (hidden ones and plain files are not packages). */
  private async listFolders(): Promise<string[]> {
    const entries = await readdir(this.config.servicesDir, { withFileTypes: true }).catch((err: unknown) => {
      this.logger.warn({ err, dir: this.config.servicesDir }, 'cannot read servicesDir');
      return [];
    });
    return entries
      .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  }
}

function folderNameProblem(folder: string): string {
  return `${folder}: the folder name must be a package name: a letter, then letters, digits, _ or - (at most 64)`;
}

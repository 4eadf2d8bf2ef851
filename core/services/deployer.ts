/**
 * Deploying package folders: one at a time, each through load → hooks' prepare → commit → live
 * (docs/packages.md, "Deploying"), and what GET /packages reports of each folder.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { JunctionEvents } from '../events.js';
import type { Sandbox } from '../sandbox/types.js';
import { commitHooks, prepareHooks } from './hooks.js';
import { loadPackage, type LoadedPackage } from './loader.js';
import { PACKAGE_NAME } from './manifest.js';
import { readPackageFolder } from './reader.js';
import type { DeployHook, PackageInfo } from './types.js';
import type { VersionTable } from './versions.js';

export interface DeployerOptions {
  servicesDir: string;
  sandbox: Sandbox;
  versions: VersionTable;
  /** The plugins' hooks, in registration order (the registry's list, read at each deploy). */
  hooks: readonly DeployHook[];
  events: JunctionEvents;
  clock: Clock;
  logger: Logger;
}

/** What the registry remembers of a package folder besides its live version. */
interface FolderState {
  /** Problems of the last deploy attempt (empty when it succeeded). */
  errors: string[];
  /** The version the last attempt read from package.yaml, if it got that far. */
  attemptedVersion: string | undefined;
  deployedAt: number | undefined;
  /**
   * Fingerprint of content whose outcome a retry would not change: the live version's, or one
   * that failed to load. Content a deploy hook refused is not settled (what it clashed with may
   * be gone by the next try).
   */
  settled: string | undefined;
}

export class PackageDeployer {
  private readonly folders = new Map<string, FolderState>();
  private readonly pending = new Map<string, Promise<void>>();
  private readonly servicesDir: string;
  private readonly sandbox: Sandbox;
  private readonly versions: VersionTable;
  private readonly hooks: readonly DeployHook[];
  private readonly events: JunctionEvents;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private queue: Promise<void> = Promise.resolve();
  private deployCounter = 0;
  private stopped = false;

  constructor(options: DeployerOptions) {
    this.servicesDir = options.servicesDir;
    this.sandbox = options.sandbox;
    this.versions = options.versions;
    this.hooks = options.hooks;
    this.events = options.events;
    this.clock = options.clock;
    this.logger = options.logger;
  }

  /** No deploy starts after this; resolves when the running one has finished. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.queue;
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

  /** Every known folder, deployed or failed, by name. */
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

  private async reloadNow(folder: string): Promise<void> {
    if (this.stopped) return;
    const dir = join(this.servicesDir, folder);
    // lstat: a symbolic link is not a package (the watcher could not see changes behind it).
    const isDir = await lstat(dir).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDir) return this.undeploy(folder);

    const state = this.folders.get(folder) ?? {
      errors: [],
      attemptedVersion: undefined,
      deployedAt: undefined,
      settled: undefined,
    };
    // The state is recorded when the attempt ends: a folder being deployed for the first time is
    // not listed as failed meanwhile.
    if (!PACKAGE_NAME.test(folder)) {
      return this.fail(folder, state, undefined, [folderNameProblem(folder)]);
    }
    let read;
    try {
      read = await readPackageFolder(dir, folder);
    } catch (err) {
      return this.fail(folder, state, undefined, [`${folder}: ${(err as Error).message}`]);
    }
    // Unchanged (a duplicate event, an editor's touch, a rescan): nothing to do.
    if (read.fingerprint === state.settled) return;
    state.settled = undefined;

    const deployId = ++this.deployCounter;
    const loaded = await loadPackage(read, deployId, this.sandbox);
    if (!loaded.pkg) {
      this.sandbox.forget(`${folder}@${deployId}`);
      state.settled = read.fingerprint;
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
      settled: commitProblems.length === 0 ? read.fingerprint : undefined,
    });
    this.folders.set(folder, state);
    this.logger.info({ package: folder, version: pkg.version, deployId: pkg.deployId }, 'package deployed');
    this.events.emit('package.deployed', { name: folder, version: pkg.version, deployId: pkg.deployId });
  }

  private fail(folder: string, state: FolderState, version: string | undefined, errors: string[]): void {
    state.errors = errors;
    state.attemptedVersion = version;
    this.folders.set(folder, state);
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
      const read = await readPackageFolder(join(this.servicesDir, folder), folder);
      const loaded = await loadPackage(read, deployId, this.sandbox);
      if (!loaded.pkg) this.sandbox.forget(`${folder}@${deployId}`);
      return loaded;
    } catch (err) {
      return { errors: [`${folder}: ${(err as Error).message}`] };
    }
  }

  /** Package folders in servicesDir (hidden ones and plain files are not packages). */
  private async listFolders(): Promise<string[]> {
    const entries = await readdir(this.servicesDir, { withFileTypes: true }).catch((err: unknown) => {
      this.logger.warn({ err, dir: this.servicesDir }, 'cannot read servicesDir');
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

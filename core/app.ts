import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse, RouteOptions } from 'fastify';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { SystemClock, type Clock } from './clock.js';
import type { JunctionConfig } from './config/schema.js';
import { LifecycleError, PluginError } from './errors.js';
import { JunctionEvents } from './events.js';
import { registerCoreRoutes } from './http/core-routes.js';
import { createHttp } from './http/server.js';
import { Lifecycle, type LifecycleState } from './lifecycle.js';
import { createLogger } from './logger.js';
import { checkOrder, resolvePlugins, withTimeout, type ResolvedPlugin } from './plugins/loader.js';
import type { JunctionApp, JunctionPlugin } from './plugins/types.js';
import { createSandbox } from './sandbox/index.js';
import type { Sandbox, SandboxHost } from './sandbox/types.js';
import { SandboxHostRelay } from './services/host.js';
import { PackageRegistry } from './services/registry.js';
import { registerPackageRoutes } from './services/routes.js';
import { createLevelStorage } from './storage/level-storage.js';
import type { Storage } from './storage/types.js';
import { Tokens } from './tokens.js';

const PLUGIN_REGISTER_TIMEOUT_MS = 10_000;
const PLUGIN_START_TIMEOUT_MS = 60_000;

export const VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface BuildOptions {
  /** Default: LevelDB under `config.dataDir`. Tests pass `createMemoryStorage()`. */
  storage?: Storage;
  clock?: Clock;
  logger?: Logger;
  /** Plugin objects used instead of `config.plugins` (tests). */
  plugins?: { plugin: JunctionPlugin<any>; options?: Record<string, unknown> }[];
  /** Makes the sandbox (default: the worker pool of `config.sandbox`). Tests may pass a fake. */
  sandbox?: (host: SandboxHost) => Sandbox;
}

export interface StartOptions {
  /** Listen on `server.host:server.port` (false: in-process only, for `inject`). Default true. */
  listen?: boolean;
}

/**
 * A Junction server. `buildApp` makes one unstarted; `start` opens storage, registers and starts
 * the plugins, deploys the packages and (optionally) listens; `stop` undoes it in reverse order.
 */
export class Junction implements JunctionApp {
  readonly container: DependencyContainer;
  readonly events: JunctionEvents;
  readonly metrics = new Registry();
  private readonly lifecycle = new Lifecycle();
  private started: ResolvedPlugin[] = [];
  private listening: string | undefined;
  private registering = true;
  private currentMode: 'serve' | 'check' = 'serve';

  private constructor(
    readonly config: JunctionConfig,
    readonly logger: Logger,
    readonly clock: Clock,
    readonly storage: Storage,
    readonly http: FastifyInstance,
    readonly services: PackageRegistry,
    private readonly pluginList: ResolvedPlugin[] | undefined,
    container: DependencyContainer,
    events: JunctionEvents,
  ) {
    this.container = container;
    this.events = events;
  }

  /** @internal */
  static async create(config: JunctionConfig, options: BuildOptions): Promise<Junction> {
    const logger = options.logger ?? createLogger(config.server.logLevel);
    const clock = options.clock ?? new SystemClock();
    const storage = options.storage ?? createLevelStorage(config.dataDir);
    const metrics = new Registry();
    const http = await createHttp({ config, logger, metrics, version: VERSION });
    const container = rootContainer.createChildContainer();
    container.register(Tokens.Config, { useValue: config });
    container.register(Tokens.Logger, { useValue: logger });
    container.register(Tokens.Clock, { useValue: clock });
    container.register(Tokens.Storage, { useValue: storage });
    container.register(Tokens.Metrics, { useValue: metrics });
    container.register(Tokens.Http, { useValue: http });
    const events = new JunctionEvents();
    container.register(Tokens.Events, { useValue: events });
    // The sandbox calls back into the registry, which needs the sandbox: a relay breaks the cycle.
    const host = new SandboxHostRelay();
    const makeSandbox =
      options.sandbox ??
      ((h: SandboxHost) =>
        createSandbox({
          ...config.sandbox,
          threads: config.sandbox.threads ?? availableParallelism(),
          host: h,
          logger: logger.child({ component: 'sandbox' }),
        }));
    container.register(Tokens.SandboxPool, { useValue: makeSandbox(host) });
    const services = container.resolve(PackageRegistry);
    host.bind(services.host);
    container.register(Tokens.ServiceRegistry, { useValue: services });
    const plugins = options.plugins?.map((p) => ({
      plugin: p.plugin,
      options: p.options ?? {},
      source: p.plugin.name,
    }));
    const app = new Junction(config, logger, clock, storage, http, services, plugins, container, events);
    Object.assign(app, { metrics });
    container.register(Tokens.App, { useValue: app });
    collectDefaultMetrics({ register: metrics, prefix: 'junction_' });
    registerCoreRoutes(http, storage, metrics);
    registerPackageRoutes(http, services);
    return app;
  }

  get mode(): 'serve' | 'check' {
    return this.currentMode;
  }

  get state(): LifecycleState {
    return this.lifecycle.state;
  }

  /** The address the server listens on (`http://host:port`), once listening. */
  get address(): string | undefined {
    return this.listening;
  }

  route(options: RouteOptions): void {
    if (!this.registering) throw new LifecycleError('routes can only be added while plugins register');
    this.http.route(options);
  }

  async start(options: StartOptions = {}): Promise<void> {
    this.lifecycle.to('STARTING');
    try {
      await this.storage.open();
      const plugins = await this.registerPlugins();
      await this.http.ready();
      this.registering = false;
      await this.services.start();
      for (const p of plugins) {
        if (p.plugin.start) {
          await withTimeout(`plugin "${p.plugin.name}" start`, PLUGIN_START_TIMEOUT_MS, () =>
            p.plugin.start!(),
          ).catch((err: unknown) => {
            throw pluginFailure(p.plugin.name, 'start', err);
          });
        }
        this.started.push(p);
      }
      if (options.listen !== false) {
        await this.http.listen({ host: this.config.server.host, port: this.config.server.port });
        const addr = this.http.server.address() as AddressInfo;
        const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
        this.listening = `http://${host}:${addr.port}`;
        this.logger.info({ address: this.listening }, `Junction listening on ${this.listening}`);
      }
      this.lifecycle.to('RUNNING');
    } catch (err) {
      this.lifecycle.to('FAILED');
      await this.shutdown().catch((e: unknown) =>
        this.logger.error({ err: e }, 'cleanup after a failed start failed'),
      );
      throw err;
    }
  }

  /**
   * Validates without serving: registers the plugins (so their deploy hooks run), loads every
   * package and returns every problem found. The app is stopped afterwards.
   */
  async check(): Promise<string[]> {
    this.currentMode = 'check';
    this.lifecycle.to('STARTING');
    try {
      await this.storage.open();
      await this.registerPlugins();
      return await this.services.check();
    } finally {
      this.lifecycle.to('FAILED');
      await this.shutdown();
      this.lifecycle.to('STOPPED');
    }
  }

  /** Stops accepting, finishes requests in flight, stops plugins in reverse order, flushes storage. */
  async stop(): Promise<void> {
    if (this.state === 'STOPPED') return;
    if (this.state === 'INITIALIZED') {
      this.lifecycle.to('STOPPED');
      return;
    }
    this.lifecycle.to('STOPPING');
    try {
      await this.shutdown();
      this.lifecycle.to('STOPPED');
    } catch (err) {
      this.lifecycle.to('FAILED');
      throw err;
    }
  }

  /** Resolves the plugin list and runs every `register`, in order, each within its time limit. */
  private async registerPlugins(): Promise<ResolvedPlugin[]> {
    const plugins = await this.plugins();
    for (const p of plugins) {
      await withTimeout(`plugin "${p.plugin.name}" register`, PLUGIN_REGISTER_TIMEOUT_MS, () =>
        p.plugin.register(this, p.options),
      ).catch((err: unknown) => {
        throw pluginFailure(p.plugin.name, 'register', err);
      });
    }
    return plugins;
  }

  private async plugins(): Promise<ResolvedPlugin[]> {
    if (!this.pluginList) return resolvePlugins(this.config.plugins);
    checkOrder(this.pluginList.map((p) => p.plugin));
    return this.pluginList;
  }

  private async shutdown(): Promise<void> {
    const errors: unknown[] = [];
    // Requests in flight get `shutdownTimeoutMs` to finish; then their connections are cut. A
    // keep-alive connection whose request finishes meanwhile turns idle and is closed by the next
    // sweep, so a client cannot hold the server open after its last answer (and no per-request
    // hook is needed for it).
    const sweep = setInterval(() => this.http.server.closeIdleConnections(), 50);
    const deadline = setTimeout(
      () => this.http.server.closeAllConnections(),
      this.config.server.shutdownTimeoutMs,
    );
    await this.http.close().catch((e: unknown) => errors.push(e));
    clearInterval(sweep);
    clearTimeout(deadline);
    for (const p of [...this.started].reverse()) {
      if (!p.plugin.stop) continue;
      try {
        await p.plugin.stop();
      } catch (err) {
        this.logger.error({ err }, `plugin "${p.plugin.name}" failed to stop`);
        errors.push(err);
      }
    }
    this.started = [];
    await this.services.stop().catch((e: unknown) => errors.push(e));
    await this.storage.close().catch((e: unknown) => errors.push(e));
    this.logger.flush?.();
    if (errors.length > 0) throw errors[0];
  }

  /** In-process request (tests): the app must be started (with `listen: false` or not). */
  inject(options: InjectOptions | string): Promise<LightMyRequestResponse> {
    return this.http.inject(options);
  }
}

function pluginFailure(name: string, phase: string, err: unknown): Error {
  const reason = err instanceof Error ? err.message : String(err);
  return new PluginError(`plugin "${name}" failed to ${phase}: ${reason}`, { cause: err });
}

/** Builds an unstarted server from a loaded configuration. */
export function buildApp(config: JunctionConfig, options: BuildOptions = {}): Promise<Junction> {
  return Junction.create(config, options);
}

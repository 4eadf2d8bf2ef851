/**
 * Test-only: an engine on memory storage with a FakeClock, and a ServiceRegistry double whose
 * `invoke` runs functions the test defines and whose `evaluate` runs expressions with `new
 * Function` (the real registry runs both in the sandbox; see real-sandbox.test.ts).
 */
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { FakeClock } from '../../../../core/clock.js';
import { JunctionEvents, type JunctionEventMap } from '../../../../core/events.js';
import { ServiceNotFoundError } from '../../../../core/services/registry.js';
import type {
  DeployHook,
  HostHandler,
  InvokeOptions,
  PackageInfo,
  PackageSource,
  ServiceRegistry,
} from '../../../../core/services/types.js';
import { createMemoryStorage, type LevelStorage } from '../../../../core/storage/level-storage.js';
import { FluxEngineImpl, type FluxEngineOptions } from '../../../../plugins/flux/engine/engine.js';

export type ServiceFn = (input: any, options: InvokeOptions | undefined) => unknown;

export class FakeServices implements ServiceRegistry {
  readonly hooks: DeployHook[] = [];
  readonly hostFunctions = new Map<string, HostHandler>();
  readonly handlers = new Map<string, ServiceFn>();
  readonly calls: { service: string; input: any; options: InvokeOptions | undefined }[] = [];
  readonly deployed = new Set<string>();
  evaluations = 0;
  private deployId = 0;

  /** Defines `pkg/class.method` (the engine calls it as `class.method` with `package: pkg`). */
  define(pkg: string, service: string, fn: ServiceFn): this {
    this.handlers.set(`${pkg}/${service}`, fn);
    return this;
  }

  async invoke(serviceName: string, input: unknown, options?: InvokeOptions): Promise<unknown> {
    const name = serviceName.includes('/') ? serviceName : `${options?.package}/${serviceName}`;
    const fn = this.handlers.get(name);
    this.calls.push({ service: name, input: structuredClone(input), options });
    if (!fn) throw new ServiceNotFoundError(`service ${name} is not deployed`);
    // Like the sandbox: JSON in, JSON out, asynchronous.
    await Promise.resolve();
    const out = await fn(structuredClone(input), options);
    return out === undefined ? null : structuredClone(out);
  }

  async evaluate(_pkg: string, expressions: string[], scope: Record<string, unknown>): Promise<unknown[]> {
    this.evaluations++;
    await Promise.resolve();
    const names = Object.keys(scope);
    const values = names.map((n) => structuredClone(scope[n]));
    return expressions.map((e) => new Function(...names, `return (${e});`)(...values));
  }

  addDeployHook(hook: DeployHook): void {
    this.hooks.push(hook);
  }

  provideHostFunction(name: string, handler: HostHandler): void {
    this.hostFunctions.set(name, handler);
  }

  packages(): PackageInfo[] {
    return [];
  }

  hasPackage(name: string): boolean {
    return this.deployed.has(name);
  }

  /** Deploys a package the way the registry does: every hook prepares, then every hook commits. */
  async deploy(name: string, files: Record<string, string>, services?: string[]): Promise<void> {
    const source: PackageSource = {
      name,
      version: '1.0.0',
      dir: `/nowhere/${name}`,
      deployId: ++this.deployId,
      aliases: [],
      services:
        services ??
        [...this.handlers.keys()]
          .filter((k) => k.startsWith(`${name}/`))
          .map((k) => k.slice(name.length + 1)),
      files: Object.entries(files).map(([path, text]) => ({ path, text })),
    };
    const prepared: unknown[] = [];
    for (const hook of this.hooks) prepared.push(await hook.prepare(source));
    this.hooks.forEach((hook, i) => hook.commit(source, prepared[i]));
    this.deployed.add(name);
  }
}

export interface Harness {
  engine: FluxEngineImpl;
  services: FakeServices;
  clock: FakeClock;
  storage: LevelStorage;
  events: JunctionEvents;
  metrics: Registry;
  seen: { [K in keyof JunctionEventMap]?: JunctionEventMap[K][] };
  logs: { msg: string; obj: any }[];
}

export interface HarnessOptions {
  storage?: LevelStorage;
  clock?: FakeClock;
  services?: FakeServices;
  options?: FluxEngineOptions;
  /** Call `engine.start()` (default true). */
  start?: boolean;
  /** Packages deployed before start: name → {path: yaml}. */
  packages?: Record<string, Record<string, string>>;
}

/** An engine on (by default fresh) memory storage; a second harness on the same storage is a restart. */
export async function harness(o: HarnessOptions = {}): Promise<Harness> {
  const storage = o.storage ?? createMemoryStorage();
  if (storage.status !== 'open') await storage.open();
  const clock = o.clock ?? new FakeClock();
  const services = o.services ?? new FakeServices();
  const events = new JunctionEvents();
  const metrics = new Registry();
  const logs: Harness['logs'] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => logs.push({ msg: JSON.parse(line).msg, obj: JSON.parse(line) }) },
  );
  const engine = new FluxEngineImpl({
    services,
    store: storage.store('flux'),
    clock,
    logger,
    metrics,
    events,
    ...(o.options ? { options: o.options } : {}),
  });
  services.hooks.length = 0;
  engine.install();
  const seen: Harness['seen'] = {};
  for (const name of ['flux.context.started', 'flux.context.transitioned', 'flux.context.ended'] as const) {
    events.on(name, (p: any) => ((seen[name] ??= []) as any[]).push(p));
  }
  for (const [name, files] of Object.entries(o.packages ?? {})) await services.deploy(name, files);
  if (o.start !== false) await engine.start();
  return { engine, services, clock, storage, events, metrics, seen, logs };
}

/** `{'flux/a/B.flux.yaml': yaml}` for one workflow. */
export function flux(path: string, yaml: string): Record<string, string> {
  return { [`flux/${path}.flux.yaml`]: yaml };
}

/** A workflow that waits for events forever: every `next` is one transition. */
export const PING_PONG = `
states:
  - name: ping
    transitions:
      - { event: next, to: pong }
  - name: pong
    transitions:
      - { event: next, to: ping }
`;

import { pino } from 'pino';
import { SandboxPool } from '../../../core/sandbox/index.js';
import type { PackageCode, SandboxHost, SandboxOptions } from '../../../core/sandbox/types.js';
import type { UserRef } from '../../../core/services/types.js';

export const USER: UserRef = { username: 'alice', groups: ['sales'] };

/** A package version from in-memory modules (`{ 'a/Echo.js': 'export ...' }`). */
export function pkg(name: string, modules: Record<string, string>, version = 1): PackageCode {
  return {
    key: `${name}@${version}`,
    name,
    modules: Object.entries(modules).map(([path, source]) => ({ path, source })),
  };
}

export interface LogLine {
  level: string;
  message: string;
  package: string;
  user: UserRef;
}

export interface TestSandbox {
  sandbox: SandboxPool;
  logs: LogLine[];
  hostCalls: { name: string; args: unknown; package: string }[];
  /** Package versions the host knows, by key (remove one to "undeploy" it). */
  packages: Map<string, PackageCode>;
  /** Runs `<class>.<method>` of a package (the key of its newest version known). */
  run(key: string, service: string, input?: unknown, user?: UserRef): Promise<unknown>;
}

/**
 * A real sandbox (real pool, real isolates) whose host serves in-memory packages. `ctx.invoke`
 * resolves `pkg/class.method` or `class.method` of the calling package and calls back into the
 * sandbox with the depth it was given, as the service registry does.
 */
export function testSandbox(
  packages: PackageCode[],
  options: Partial<Omit<SandboxOptions, 'host' | 'logger'>> = {},
  hostCall: SandboxHost['call'] = async (name) => {
    throw new Error(`no host function ${name}`);
  },
): TestSandbox {
  const known = new Map(packages.map((p) => [p.key, p]));
  const logs: LogLine[] = [];
  const hostCalls: TestSandbox['hostCalls'] = [];
  const keyOf = (name: string): string => {
    const versions = [...known.values()].filter((p) => p.name === name);
    const latest = versions[versions.length - 1];
    if (latest === undefined) throw new Error(`no package ${name}`);
    return latest.key;
  };
  const split = (service: string): { module: string; fn: string } => {
    const dot = service.lastIndexOf('.');
    return { module: `${service.slice(0, dot).replaceAll('.', '/')}.js`, fn: service.slice(dot + 1) };
  };
  const host: SandboxHost = {
    code: (key) => known.get(key),
    log: (level, message, caller) =>
      logs.push({ level, message, package: caller.package, user: caller.user }),
    invoke: (serviceName, input, caller) => {
      const slash = serviceName.indexOf('/');
      const name = slash < 0 ? caller.package : serviceName.slice(0, slash);
      const target = split(slash < 0 ? serviceName : serviceName.slice(slash + 1));
      return sandbox.call({ key: keyOf(name), ...target, input, user: caller.user, depth: caller.depth });
    },
    call: (name, args, caller) => {
      hostCalls.push({ name, args, package: caller.package });
      return hostCall(name, args, caller);
    },
  };
  const sandbox = new SandboxPool({
    threads: 1,
    memoryLimitMb: 16,
    timeoutMs: 1500,
    maxInvokeDepth: 3,
    httpTimeoutMs: 300,
    httpMaxBytes: 1024,
    ...options,
    host,
    logger: pino({ level: 'silent' }),
  });
  return {
    sandbox,
    logs,
    hostCalls,
    packages: known,
    run: (key, service, input = {}, user = USER) =>
      sandbox.call({ key, ...split(service), input, user, depth: 0 }),
  };
}

/** The rejection of `promise` (fails the test if it resolves). */
export async function rejection(
  promise: Promise<unknown>,
): Promise<Error & { code?: string; statusCode?: number }> {
  try {
    await promise;
  } catch (err) {
    return err as Error & { code?: string; statusCode?: number };
  }
  throw new Error('expected a rejection');
}

/** Waits (one event-loop turn at a time) until `condition` holds; fails after `ms`. */
export async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The host side of `ctx`: what sandboxed code reaches through the sandbox (SandboxHost). The
 * sandbox is created before the registry that answers it, so it is given a relay that the
 * registry binds once it exists.
 */
import type { Logger } from 'pino';
import type { PackageCode, SandboxHost } from '../sandbox/types.js';
import { HostFunctionUnavailableError } from './errors.js';
import type { HostHandler, InvokeOptions, UserRef } from './types.js';

/** What a call from inside the sandbox needs of the registry. */
export interface HostTarget {
  code(key: string): PackageCode | undefined;
  invoke(serviceName: string, input: unknown, options: InvokeOptions): Promise<unknown>;
}

/** Which plugin provides the host functions of a namespace, for the error when it is missing. */
const PROVIDERS: Record<string, string> = { flux: 'the flux plugin' };

export class RegistryHost implements SandboxHost {
  private readonly functions = new Map<string, HostHandler>();

  constructor(
    private readonly target: HostTarget,
    private readonly logger: Logger,
  ) {}

  provide(name: string, handler: HostHandler): void {
    if (this.functions.has(name)) throw new Error(`host function "${name}" is provided twice`);
    this.functions.set(name, handler);
  }

  code(key: string): PackageCode | undefined {
    return this.target.code(key);
  }

  log(level: 'info' | 'warn' | 'error', message: string, caller: { package: string; user: UserRef }): void {
    this.logger[level]({ package: caller.package, user: caller.user.username }, message);
  }

  invoke(
    serviceName: string,
    input: unknown,
    caller: { package: string; user: UserRef; depth: number },
  ): Promise<unknown> {
    return this.target.invoke(serviceName, input, caller);
  }

  async call(name: string, args: unknown, caller: { package: string; user: UserRef }): Promise<unknown> {
    const handler = this.functions.get(name);
    if (!handler) {
      const provider = PROVIDERS[name.split('.')[0]!];
      throw new HostFunctionUnavailableError(
        `ctx.${name} is not available${provider ? `: ${provider} is not loaded` : ''}`,
      );
    }
    return handler(args, caller);
  }
}

/** A SandboxHost that forwards to one bound later (the sandbox exists before the registry). */
export class SandboxHostRelay implements SandboxHost {
  private target: SandboxHost | undefined;

  bind(target: SandboxHost): void {
    this.target = target;
  }

  private get host(): SandboxHost {
    if (!this.target) throw new Error('the sandbox host is not bound to a registry yet');
    return this.target;
  }

  code(key: string): PackageCode | undefined {
    return this.host.code(key);
  }

  log(level: 'info' | 'warn' | 'error', message: string, caller: { package: string; user: UserRef }): void {
    this.host.log(level, message, caller);
  }

  invoke(
    serviceName: string,
    input: unknown,
    caller: { package: string; user: UserRef; depth: number },
  ): Promise<unknown> {
    return this.host.invoke(serviceName, input, caller);
  }

  call(name: string, args: unknown, caller: { package: string; user: UserRef }): Promise<unknown> {
    return this.host.call(name, args, caller);
  }
}

import { inject, injectable } from 'tsyringe';
import type { Logger } from 'pino';
import { defineError } from '../errors.js';
import { Tokens } from '../tokens.js';
import type { DeployHook, HostHandler, InvokeOptions, PackageInfo, ServiceRegistry } from './types.js';

export const ServiceNotFoundError = defineError('JCT_SERVICE_NOT_FOUND', 404, 'No such service');

/**
 * The registry of deployed packages. (Package loading and the sandbox land with the sandbox
 * issue; until then no package is deployed and every invocation is JCT_SERVICE_NOT_FOUND.)
 */
@injectable()
export class PackageRegistry implements ServiceRegistry {
  private readonly hooks: DeployHook[] = [];
  private readonly hostFunctions = new Map<string, HostHandler>();

  constructor(@inject(Tokens.Logger) private readonly logger: Logger) {}

  async start(): Promise<void> {
    this.logger.debug('service registry started');
  }

  async stop(): Promise<void> {}

  /** Loads every package without deploying it and returns the problems found. */
  async check(): Promise<string[]> {
    return [];
  }

  invoke(serviceName: string, _input: unknown, _options?: InvokeOptions): Promise<unknown> {
    return Promise.reject(new ServiceNotFoundError(`service ${serviceName} is not deployed`));
  }

  evaluate(packageName: string): Promise<unknown[]> {
    return Promise.reject(new ServiceNotFoundError(`package ${packageName} is not deployed`));
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

  hasPackage(): boolean {
    return false;
  }
}

import type ivm from 'isolated-vm';
import { VersionNotDeployedError } from '../errors.js';
import type { PackageCode } from '../types.js';
import type { HostLink } from './host-link.js';
import { PackageIsolate } from './package-isolate.js';

/**
 * The isolates of one worker, one per package version key. A miss asks the main thread for the
 * key's code (`SandboxHost.code`); concurrent misses on one key share that request and the isolate.
 * A disposed isolate (timeout, memory limit) is replaced on the next call.
 */
export class PackageCache {
  private readonly isolates = new Map<string, PackageIsolate>();
  private readonly creating = new Map<string, Promise<PackageIsolate>>();
  /** Keys forgotten in this worker: an isolate made for one later is disposed after its call. */
  private readonly forgottenKeys = new Set<string>();

  constructor(
    private readonly link: HostLink,
    private readonly settings: { memoryLimitMb: number; timeoutMs: number },
    private readonly makeHostReference: (pkg: PackageIsolate) => ivm.Reference,
  ) {}

  /** The isolate for `key`, counted as in use until `release`. It may still be loading (`ready`). */
  async acquire(key: string): Promise<PackageIsolate> {
    const current = this.isolates.get(key);
    const pkg = current?.alive ? current : await this.create(key);
    pkg.active++;
    return pkg;
  }

  release(pkg: PackageIsolate): void {
    pkg.active--;
    if (pkg.active === 0 && (pkg.forgotten || !pkg.alive)) this.discard(pkg);
  }

  /** A standalone isolate for `inspect`: not cached, dispose it when done. */
  standalone(code: PackageCode): PackageIsolate {
    return new PackageIsolate(
      code,
      this.settings.memoryLimitMb,
      this.settings.timeoutMs,
      this.makeHostReference,
    );
  }

  forget(key: string): void {
    this.forgottenKeys.add(key);
    const pkg = this.isolates.get(key);
    if (pkg === undefined) return;
    pkg.forgotten = true;
    if (pkg.active === 0) this.discard(pkg);
  }

  /** Disposes an isolate and uncaches it (forgotten, dead, or failed to load: the next call retries). */
  discard(pkg: PackageIsolate): void {
    pkg.reset('forgotten');
    if (this.isolates.get(pkg.code.key) === pkg) this.isolates.delete(pkg.code.key);
  }

  private create(key: string): Promise<PackageIsolate> {
    let pending = this.creating.get(key);
    if (pending === undefined) {
      pending = this.fetchAndCreate(key).finally(() => this.creating.delete(key));
      this.creating.set(key, pending);
    }
    return pending;
  }

  private async fetchAndCreate(key: string): Promise<PackageIsolate> {
    const code = (await this.link.request({ type: 'code', key })) as PackageCode | undefined;
    if (code === undefined || code === null) {
      throw new VersionNotDeployedError(`package version ${key} is not deployed`);
    }
    const pkg = this.standalone(code);
    pkg.forgotten = this.forgottenKeys.has(key);
    const previous = this.isolates.get(key);
    if (previous !== undefined && previous.active === 0) previous.reset('forgotten');
    this.isolates.set(key, pkg);
    return pkg;
  }
}

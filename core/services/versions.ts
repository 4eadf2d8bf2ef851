/**
 * Which version of each package is live, and which older versions still have calls running.
 * A call holds its version for its whole length: a redeploy swaps the live version for new calls
 * only, and the old version's compiled code is dropped from the sandbox (`forget`) when its last
 * call has finished.
 */
import type { PackageCode } from '../sandbox/types.js';
import type { LoadedPackage } from './loader.js';

interface VersionEntry {
  pkg: LoadedPackage;
  calls: number;
  /** No longer live: forgotten when `calls` drops to 0. */
  retired: boolean;
}

export class VersionTable {
  private readonly live = new Map<string, LoadedPackage>();
  private readonly byKey = new Map<string, VersionEntry>();

  constructor(private readonly forget: (key: string) => void) {}

  /** The live version of a package. */
  get(name: string): LoadedPackage | undefined {
    return this.live.get(name);
  }

  liveNames(): string[] {
    return [...this.live.keys()];
  }

  /** The code of any version the sandbox may still be asked to run (live, candidate or draining). */
  code(key: string): PackageCode | undefined {
    return this.byKey.get(key)?.pkg.code;
  }

  /** Versions still running calls after they stopped being live (for tests and diagnostics). */
  draining(): string[] {
    return [...this.byKey.values()].filter((e) => e.retired).map((e) => e.pkg.key);
  }

  /** A version being prepared: its code is resolvable, it is not live. */
  addCandidate(pkg: LoadedPackage): void {
    this.byKey.set(pkg.key, { pkg, calls: 0, retired: false });
  }

  /** Drops a candidate that did not go live. */
  discard(key: string): void {
    this.byKey.delete(key);
    this.forget(key);
  }

  /** Makes `pkg` (a candidate) the live version of its package in one step; retires the previous one. */
  activate(pkg: LoadedPackage): void {
    const previous = this.live.get(pkg.name);
    this.live.set(pkg.name, pkg);
    if (previous && previous.key !== pkg.key) this.retire(previous.key);
  }

  /** Undeploys a package: no new calls reach it; running ones finish. */
  remove(name: string): LoadedPackage | undefined {
    const previous = this.live.get(name);
    if (!previous) return undefined;
    this.live.delete(name);
    this.retire(previous.key);
    return previous;
  }

  /** Runs `fn` as a call on `pkg`, holding the version until the call settles. */
  async run<T>(pkg: LoadedPackage, fn: () => Promise<T>): Promise<T> {
    const entry = this.byKey.get(pkg.key);
    if (entry) entry.calls++;
    try {
      return await fn();
    } finally {
      if (entry) {
        entry.calls--;
        if (entry.retired && entry.calls === 0) this.drop(entry);
      }
    }
  }

  private retire(key: string): void {
    const entry = this.byKey.get(key);
    if (!entry) return;
    entry.retired = true;
    if (entry.calls === 0) this.drop(entry);
  }

  private drop(entry: VersionEntry): void {
    this.byKey.delete(entry.pkg.key);
    this.forget(entry.pkg.key);
  }
}

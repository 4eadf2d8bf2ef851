import ivm from 'isolated-vm';
import { PackageInvalidError, SandboxTimeoutError } from '../errors.js';
import { isolateRuntimeSource } from '../isolate/runtime.js';
import type { ModuleExports, PackageCode } from '../types.js';
import { resolveImport } from './module-linker.js';

/** Why an isolate was disposed while calls may still have been running in it. */
export type ResetReason = 'timeout' | 'memory' | 'forgotten' | 'closed';

/**
 * One package version inside one worker: an isolate with one context, the package's modules
 * compiled, linked and evaluated once, and the in-isolate runtime's entry points. Calls reuse all of
 * it, so a warm call compiles nothing and creates nothing but its `ctx`.
 */
export class PackageIsolate {
  readonly isolate: ivm.Isolate;
  /** Settles once the modules are loaded; rejects with JCT_PACKAGE_INVALID naming the module. */
  readonly ready: Promise<void>;
  /** Jobs using this isolate now (loading or running). */
  active = 0;
  /** Set by `forget`: dispose once `active` drops to 0, never reuse for a new call. */
  forgotten = false;
  resetReason: ResetReason | undefined;
  /** The module whose top-level code is running while the package loads. */
  loadingModule: string | undefined;
  private runBatchRef: ivm.Reference | undefined;
  private readonly resetListeners = new Set<() => void>();
  private evaluateRef: ivm.Reference | undefined;
  private exportsOfRef: ivm.Reference | undefined;
  private pingRef: ivm.Reference | undefined;
  private probing = false;

  constructor(
    readonly code: PackageCode,
    memoryLimitMb: number,
    private readonly timeoutMs: number,
    makeHostReference: (pkg: PackageIsolate) => ivm.Reference,
  ) {
    this.isolate = new ivm.Isolate({ memoryLimit: memoryLimitMb });
    this.ready = this.loadWithinLimit(makeHostReference(this));
    // Waiters observe the failure; this keeps an unobserved rejection from being reported.
    this.ready.catch(() => {});
  }

  get alive(): boolean {
    return !this.isolate.isDisposed;
  }

  /** Disposes the isolate (a watchdog, the memory limit or `forget`); running calls fail. */
  reset(reason: ResetReason): void {
    this.resetReason ??= reason;
    if (!this.isolate.isDisposed) this.isolate.dispose();
    for (const listener of [...this.resetListeners]) listener();
  }

  /** Calls `listener` when the isolate is reset (calls waiting on it will never be answered). */
  onReset(listener: () => void): () => void {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  /** One entry into the isolate for a batch of calls (see `runBatch` in isolate/runtime.ts). */
  runBatch(batch: string): Promise<string> {
    return this.runBatchRef!.apply(undefined, [batch], { result: { promise: true } }) as Promise<string>;
  }

  evaluate(expressions: string, scope: string): Promise<string> {
    return this.evaluateRef!.apply(undefined, [expressions, scope], {
      result: { promise: true },
    }) as Promise<string>;
  }

  /**
   * Checks that the isolate is free within the time limit, else resets it. Used when code may be
   * running outside any call (an answer arrived after its call ended), where no watchdog watches.
   */
  probe(): void {
    if (this.probing || !this.alive || this.pingRef === undefined) return;
    this.probing = true;
    const timer = setTimeout(() => this.reset('timeout'), this.timeoutMs);
    this.pingRef
      .apply(undefined, [])
      .catch(() => {})
      .finally(() => {
        clearTimeout(timer);
        this.probing = false;
      });
  }

  async exports(): Promise<ModuleExports[]> {
    const out: ModuleExports[] = [];
    for (const { path } of this.code.modules) {
      const names = (await this.exportsOfRef!.apply(undefined, [path])) as string;
      out.push({ path, functions: JSON.parse(names) as string[] });
    }
    return out;
  }

  /**
   * Loading has a time limit of its own (the calls waiting for it start theirs once it is done):
   * top-level code that never finishes fails the load with JCT_SANDBOX_TIMEOUT naming the module.
   */
  private async loadWithinLimit(hostReference: ivm.Reference): Promise<void> {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      this.reset('timeout');
    }, this.timeoutMs);
    try {
      await this.load(hostReference);
    } catch (err) {
      if (!timedOut) throw err;
      const where =
        this.loadingModule === undefined ? '' : ` (in the top-level code of module ${this.loadingModule})`;
      throw new SandboxTimeoutError(
        `loading package ${this.code.name} ran past ${this.timeoutMs} ms${where}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  private async load(hostReference: ivm.Reference): Promise<void> {
    const context = await this.isolate.createContext();
    const runtime = (await context.evalClosure(isolateRuntimeSource, [hostReference, this.code.name], {
      result: { reference: true },
    })) as ivm.Reference;
    this.runBatchRef = await runtime.get('runBatch', { reference: true });
    this.evaluateRef = await runtime.get('evaluate', { reference: true });
    this.exportsOfRef = await runtime.get('exportsOf', { reference: true });
    this.pingRef = await runtime.get('ping', { reference: true });
    const register = (await runtime.get('register', { reference: true })) as ivm.Reference;

    const paths = new Set(this.code.modules.map((m) => m.path));
    const compiled = new Map<string, ivm.Module>();
    const pathOf = new Map<ivm.Module, string>();
    for (const { path, source } of this.code.modules) {
      const module = await this.guard(path, () => this.isolate.compileModule(source, { filename: path }));
      // Resolve every import now, so a bad one is reported naming its module.
      for (const specifier of module.dependencySpecifiers) resolveImport(path, specifier, paths);
      compiled.set(path, module);
      pathOf.set(module, path);
    }
    for (const [path, module] of compiled) {
      await this.guard(path, () =>
        module.instantiate(context, (specifier, referrer) => {
          const target = compiled.get(resolveImport(pathOf.get(referrer) ?? path, specifier, paths));
          if (target === undefined) throw new PackageInvalidError(`module ${path} imports '${specifier}'`);
          return target;
        }),
      );
    }
    for (const [path, module] of compiled) {
      this.loadingModule = path;
      await this.guard(path, () => module.evaluate({ timeout: this.timeoutMs }));
      this.loadingModule = undefined;
      await register.apply(undefined, [path, module.namespace.derefInto()]);
    }
  }

  /** Rewords a compile, link or top-level failure as JCT_PACKAGE_INVALID naming the module. */
  private async guard<T>(path: string, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      // A disposed isolate (watchdog, memory limit) is the runner's to explain, not the module's.
      if (this.isolate.isDisposed || err instanceof PackageInvalidError) throw err;
      const e = err as Error;
      if (e.message === 'Script execution timed out.') {
        throw new SandboxTimeoutError(
          `module ${path} of package ${this.code.name} ran past ${this.timeoutMs} ms at top level`,
        );
      }
      throw new PackageInvalidError(`module ${path} of package ${this.code.name}: ${e.name}: ${e.message}`);
    }
  }
}

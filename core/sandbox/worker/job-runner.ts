import { JunctionError, type WireError } from '../../errors.js';
import {
  ExpressionError,
  NoSuchFunctionError,
  PackageInvalidError,
  SandboxCrashedError,
  SandboxMemoryError,
  SandboxTimeoutError,
  wireErrorWithStatus,
} from '../errors.js';
import type { CallJob, EvaluateJob, InspectJob, Job, Outcome } from '../protocol.js';
import { activeCalls, newCallId } from './active-calls.js';
import type { PackageCache } from './package-cache.js';
import type { PackageIsolate } from './package-isolate.js';

/**
 * Runs one job to an Outcome; never rejects. Each job has a wall-clock watchdog: ivm's own
 * `timeout` bounds only synchronous execution, so `await x; while (true) {}` or a promise that never
 * settles would otherwise hold the call forever. When the watchdog fires it disposes the isolate
 * (the only way to stop code running in it); the next call gets a fresh one.
 */
export class JobRunner {
  constructor(
    private readonly cache: PackageCache,
    private readonly timeoutMs: number,
  ) {}

  async run(job: Job): Promise<Outcome> {
    try {
      if (job.kind === 'inspect') return await this.inspect(job);
      return await this.runInPackage(job);
    } catch (err) {
      return { id: job.id, ok: false, service: false, error: toWire(err, job) };
    }
  }

  private async runInPackage(job: CallJob | EvaluateJob): Promise<Outcome> {
    const pkg = await this.cache.acquire(job.key);
    try {
      return await this.watch(pkg, job, async () => {
        await pkg.ready;
        return job.kind === 'call' ? this.call(pkg, job) : this.evaluate(pkg, job);
      });
    } catch (err) {
      if (!pkg.alive || err instanceof PackageInvalidError) this.cache.discard(pkg);
      throw err;
    } finally {
      this.cache.release(pkg);
    }
  }

  private async call(pkg: PackageIsolate, job: CallJob): Promise<Outcome> {
    const callId = newCallId();
    activeCalls.set(callId, { package: pkg.code.name, user: job.user, depth: job.depth });
    try {
      const result = await pkg.call(job.module, job.fn, callId, job.input, JSON.stringify(job.user));
      switch (result[0]) {
        case '1':
          return { id: job.id, ok: true, value: result.slice(1) };
        case '0': {
          const { stack, ...error } = JSON.parse(result.slice(1)) as {
            stack?: string;
            name: string;
            message: string;
          };
          return { id: job.id, ok: false, service: true, error, ...(stack === undefined ? {} : { stack }) };
        }
        default:
          throw new NoSuchFunctionError(`package ${pkg.code.name}: ${result.slice(1)}`);
      }
    } finally {
      activeCalls.delete(callId);
    }
  }

  private async evaluate(pkg: PackageIsolate, job: EvaluateJob): Promise<Outcome> {
    const result = await pkg.evaluate(JSON.stringify(job.expressions), job.scope);
    if (result[0] === '1') return { id: job.id, ok: true, value: result.slice(1) };
    const { index, error } = JSON.parse(result.slice(1)) as {
      index: number;
      error: { name: string; message: string };
    };
    throw new ExpressionError(
      `expression \`${job.expressions[index]}\` failed: ${error.name}: ${error.message}`,
    );
  }

  private async inspect(job: InspectJob): Promise<Outcome> {
    const pkg = this.cache.standalone(job.code);
    try {
      return await this.watch(pkg, job, async () => {
        await pkg.ready;
        return { id: job.id, ok: true, value: JSON.stringify(await pkg.exports()) };
      });
    } finally {
      pkg.reset('forgotten');
    }
  }

  private async watch(pkg: PackageIsolate, job: Job, work: () => Promise<Outcome>): Promise<Outcome> {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      pkg.reset('timeout');
    }, this.timeoutMs);
    try {
      return await work();
    } catch (err) {
      if (timedOut) throw new SandboxTimeoutError(`${describeJob(job, pkg)} ran past ${this.timeoutMs} ms`);
      throw explainReset(err, pkg, job);
    } finally {
      clearTimeout(timer);
    }
  }
}

function describeJob(job: Job, pkg: PackageIsolate): string {
  switch (job.kind) {
    case 'call':
      return `service ${pkg.code.name}/${job.module.replace(/\.js$/, '').replaceAll('/', '.')}.${job.fn}`;
    case 'evaluate':
      return `evaluation in package ${pkg.code.name}`;
    case 'inspect':
      return `loading package ${pkg.code.name}`;
  }
}

/** An ivm failure (the isolate was disposed under the call) said in Junction's terms. */
function explainReset(err: unknown, pkg: PackageIsolate, job: Job): unknown {
  if (err instanceof JunctionError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/memory limit/i.test(message) || pkg.resetReason === 'memory') {
    pkg.resetReason ??= 'memory';
    return new SandboxMemoryError(
      `${describeJob(job, pkg)} ran out of memory (the package's isolate was reset)`,
    );
  }
  if (pkg.resetReason === 'timeout') {
    return new SandboxCrashedError(
      `${describeJob(job, pkg)} was stopped: code in the same isolate ran past the time limit and the isolate was reset`,
    );
  }
  return err;
}

function toWire(err: unknown, job: Job): WireError {
  if (err instanceof JunctionError) return wireErrorWithStatus(err);
  // A WireError replied by the main thread (e.g. the host failed to give the code).
  if (typeof err === 'object' && err !== null && !(err instanceof Error) && 'message' in err)
    return err as WireError;
  const message = err instanceof Error ? err.message : String(err);
  return wireErrorWithStatus(new SandboxCrashedError(`sandbox failure (${job.kind}): ${message}`));
}

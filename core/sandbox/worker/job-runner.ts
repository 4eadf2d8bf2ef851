import { ExpressionError, PackageInvalidError } from '../errors.js';
import type { EvaluateJob, InspectJob, Outcome } from '../protocol.js';
import { explainReset, failure, timeoutError } from './job-failures.js';
import type { PackageCache } from './package-cache.js';
import type { PackageIsolate } from './package-isolate.js';

/**
 * Runs an evaluation or an inspection to an Outcome; never rejects. (Calls run in groups:
 * call-group.ts.) Each job has a wall-clock watchdog that disposes the isolate when it fires.
 */
export class JobRunner {
  constructor(
    private readonly cache: PackageCache,
    private readonly timeoutMs: number,
  ) {}

  async run(job: EvaluateJob | InspectJob): Promise<Outcome> {
    try {
      if (job.kind === 'inspect') return await this.inspect(job);
      return await this.evaluateInPackage(job);
    } catch (err) {
      return failure(job, err);
    }
  }

  private async evaluateInPackage(job: EvaluateJob): Promise<Outcome> {
    const pkg = await this.cache.acquire(job.key);
    try {
      await pkg.ready.catch((err: unknown) => Promise.reject(explainReset(err, pkg, job))); // its own time limit
      return await this.watch(pkg, job, () => this.evaluate(pkg, job));
    } catch (err) {
      if (!pkg.alive || err instanceof PackageInvalidError) this.cache.discard(pkg);
      throw err;
    } finally {
      this.cache.release(pkg);
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
      // Loading has its own time limit; listing the exports runs no service code.
      await pkg.ready.catch((err: unknown) => Promise.reject(explainReset(err, pkg, job)));
      return { id: job.id, ok: true, value: JSON.stringify(await pkg.exports()) };
    } finally {
      pkg.reset('forgotten');
    }
  }

  private async watch(
    pkg: PackageIsolate,
    job: EvaluateJob | InspectJob,
    work: () => Promise<Outcome>,
  ): Promise<Outcome> {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      pkg.reset('timeout');
    }, this.timeoutMs);
    try {
      return await work();
    } catch (err) {
      if (timedOut) throw timeoutError(job, pkg, this.timeoutMs);
      throw explainReset(err, pkg, job);
    } finally {
      clearTimeout(timer);
    }
  }
}

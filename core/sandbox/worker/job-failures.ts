import { JunctionError, type WireError } from '../../errors.js';
import {
  SandboxCrashedError,
  SandboxMemoryError,
  SandboxTimeoutError,
  wireErrorWithStatus,
} from '../errors.js';
import type { Job, Outcome } from '../protocol.js';
import type { PackageIsolate } from './package-isolate.js';

/** How a job is named in error messages: the service, or what the job was doing. */
export function describeJob(job: Job, pkg: PackageIsolate): string {
  switch (job.kind) {
    case 'call':
      return `service ${pkg.code.name}/${job.module.replace(/\.js$/, '').replaceAll('/', '.')}.${job.fn}`;
    case 'evaluate':
      return `evaluation in package ${pkg.code.name}`;
    case 'inspect':
      return `loading package ${pkg.code.name}`;
  }
}

/** JCT_SANDBOX_TIMEOUT for a job that ran past the limit. */
export function timeoutError(job: Job, pkg: PackageIsolate, timeoutMs: number): JunctionError {
  return new SandboxTimeoutError(`${describeJob(job, pkg)} ran past ${timeoutMs} ms`);
}

/** An ivm failure (the isolate was disposed under the job) said in Junction's terms. */
export function explainReset(err: unknown, pkg: PackageIsolate, job: Job): unknown {
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

/** A failed job's Outcome: a sandbox error by code, anything unexpected as JCT_SANDBOX_CRASHED. */
export function failure(job: Job, err: unknown): Outcome {
  return { id: job.id, ok: false, service: false, error: toWire(err, job) };
}

function toWire(err: unknown, job: Job): WireError {
  if (err instanceof JunctionError) return wireErrorWithStatus(err);
  // A WireError replied by the main thread (e.g. the host failed to give the code).
  if (typeof err === 'object' && err !== null && !(err instanceof Error) && 'message' in err)
    return err as WireError;
  const message = err instanceof Error ? err.message : String(err);
  return wireErrorWithStatus(new SandboxCrashedError(`sandbox failure (${job.kind}): ${message}`));
}

import { NoSuchFunctionError, PackageInvalidError } from '../errors.js';
import type { CallJob, Outcome } from '../protocol.js';
import { activeCalls, lateAnswers, newCallId } from './active-calls.js';
import { explainReset, failure, timeoutError } from './job-failures.js';
import type { PackageCache } from './package-cache.js';
import type { PackageIsolate } from './package-isolate.js';

/** One call of a group: answered once, by whichever comes first (its result, a watchdog, a reset). */
class Slot {
  readonly callId = newCallId();
  readonly answered: Promise<Outcome>;
  settled = false;
  private resolve: (outcome: Outcome) => void = () => {};

  constructor(readonly job: CallJob) {
    this.answered = new Promise<Outcome>((resolve) => (this.resolve = resolve));
  }

  settle(outcome: Outcome): void {
    if (this.settled) return;
    this.settled = true;
    // From now on the call's ctx is refused (see host-calls.ts).
    activeCalls.delete(this.callId);
    lateAnswers.delete(this.callId);
    this.resolve(outcome);
  }
}

/**
 * Runs calls of one package version that arrived in one batch with a single entry into the
 * isolate and one wall-clock watchdog for all of them (they start together). Each call is answered
 * on its own promise as soon as it ends. When the watchdog fires, the calls still running fail with
 * JCT_SANDBOX_TIMEOUT and the isolate is disposed: ivm's own `timeout` bounds only synchronous
 * execution, so `await x; while (true) {}` or a promise that never settles needs this.
 */
export function runCallGroup(
  cache: PackageCache,
  timeoutMs: number,
  key: string,
  jobs: CallJob[],
): Promise<Outcome>[] {
  const slots = jobs.map((job) => new Slot(job));
  void drive(cache, timeoutMs, key, slots);
  return slots.map((slot) => slot.answered);
}

async function drive(cache: PackageCache, timeoutMs: number, key: string, slots: Slot[]): Promise<void> {
  let pkg: PackageIsolate;
  try {
    pkg = await cache.acquire(key);
  } catch (err) {
    for (const slot of slots) slot.settle(failure(slot.job, err));
    return;
  }
  const failRest = (why: (job: CallJob) => unknown): void => {
    for (const slot of slots) if (!slot.settled) slot.settle(failure(slot.job, why(slot.job)));
  };
  try {
    await pkg.ready; // loading has its own time limit; the calls' limit starts now
  } catch (err) {
    failRest((job) => explainReset(err, pkg, job));
    cache.discard(pkg);
    cache.release(pkg);
    return;
  }
  // While the group is inside the isolate (in the batch entry), a reset makes that
  // await reject, and the calls are answered only then, once the isolate has stopped: a worker
  // terminated while an isolate is still unwinding can take the process down with it.
  let inIsolate = false;
  let timedOut = false;
  const why =
    (err: unknown) =>
    (job: CallJob): unknown =>
      timedOut ? timeoutError(job, pkg, timeoutMs) : explainReset(err, pkg, job);
  const timer = setTimeout(() => {
    if (!pkg.alive)
      pkg.resetReason ??= 'memory'; // disposed without a reset: ivm's memory limit
    else timedOut = true;
    pkg.reset('timeout');
    if (!inIsolate) failRest(why(new Error('the isolate was disposed')));
  }, timeoutMs);
  // A reset from elsewhere (another group's watchdog, a probe): calls waiting on host answers here
  // would never be answered.
  const stopListening = pkg.onReset(() => {
    if (!inIsolate) failRest(why(new Error('the isolate was reset')));
  });
  try {
    for (const slot of slots) {
      activeCalls.set(slot.callId, { package: pkg.code.name, user: slot.job.user, depth: slot.job.depth });
      lateAnswers.set(slot.callId, (result) => slot.settle(toOutcome(slot.job, pkg, result)));
    }
    // Inputs are JSON text already: spliced in, they are parsed once, inside the isolate.
    const entries = slots.map(
      ({ job, callId }) =>
        `[${JSON.stringify(job.module)},${JSON.stringify(job.fn)},${callId},${job.input},${JSON.stringify(job.user)}]`,
    );
    inIsolate = true;
    const results = JSON.parse(await pkg.runBatch(`[${entries.join(',')}]`)) as (string | null)[];
    inIsolate = false;
    results.forEach((result, i) => {
      const slot = slots[i]!;
      if (result !== null) slot.settle(toOutcome(slot.job, pkg, result));
    });
    if (!pkg.alive) failRest(why(new Error('the isolate was reset')));
    await Promise.all(slots.map((slot) => slot.answered));
  } catch (err) {
    inIsolate = false;
    failRest(why(err));
    if (!pkg.alive || err instanceof PackageInvalidError) cache.discard(pkg);
  } finally {
    clearTimeout(timer);
    stopListening();
    cache.release(pkg);
  }
}

/** A call's tagged result text (isolate/runtime.ts) as an Outcome. */
function toOutcome(job: CallJob, pkg: PackageIsolate, result: string): Outcome {
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
      return failure(job, new NoSuchFunctionError(`package ${pkg.code.name}: ${result.slice(1)}`));
  }
}

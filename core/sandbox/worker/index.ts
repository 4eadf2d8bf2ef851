/**
 * A sandbox worker thread (piscina task module). Each task is a batch of jobs queued together on
 * the main thread; they run concurrently in this worker's isolates, the calls of one package
 * version with one entry into its isolate (call-group.ts). A job that finishes while
 * others of its batch are still running is answered at once over the worker's own port, so one
 * slow call never holds back the answers of the calls batched with it.
 */
import ivm from 'isolated-vm';
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';
import type { BatchResult, BatchTask, CallJob, Outcome, WorkerSettings } from '../protocol.js';
import { runCallGroup } from './call-group.js';
import { createHostReference } from './host-calls.js';
import { HostLink } from './host-link.js';
import { JobRunner } from './job-runner.js';
import { PackageCache } from './package-cache.js';

const settings = workerData as WorkerSettings;
const channel = new MessageChannel();
const link = new HostLink(channel.port1, (key) => cache.forget(key));
const cache: PackageCache = new PackageCache(link, settings, (pkg) =>
  createHostReference(link, ivm, () => pkg.probe()),
);
const runner = new JobRunner(cache, settings.timeoutMs);
// Piscina forwards a worker's parentPort messages to the pool's 'message' event: that is how the
// main thread gets this worker's port.
parentPort!.postMessage({ junctionSandboxPort: channel.port2 }, [channel.port2]);

export default function runBatch(task: BatchTask): Promise<BatchResult> {
  return new Promise((resolve) => {
    let remaining = task.jobs.length;
    let early: Outcome[] = [];
    let flushScheduled = false;
    const flushEarly = (): void => {
      flushScheduled = false;
      if (early.length === 0) return;
      link.post({ type: 'outcomes', outcomes: early });
      early = [];
    };
    const answer = (outcome: Outcome): void => {
      remaining--;
      if (remaining === 0) {
        resolve({ outcomes: [...early, outcome] });
        early = [];
        return;
      }
      early.push(outcome);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushEarly);
      }
    };
    const callsByKey = new Map<string, CallJob[]>();
    for (const job of task.jobs) {
      if (job.kind === 'call') {
        const group = callsByKey.get(job.key);
        if (group) group.push(job);
        else callsByKey.set(job.key, [job]);
      } else {
        void runner.run(job).then(answer);
      }
    }
    for (const [key, jobs] of callsByKey) {
      for (const answered of runCallGroup(cache, settings.timeoutMs, key, jobs)) void answered.then(answer);
    }
  });
}

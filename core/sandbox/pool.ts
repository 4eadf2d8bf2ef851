import { Piscina } from 'piscina';
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { fromWireError } from '../errors.js';
import { SandboxClosedError, SandboxCrashedError, ServiceError, VersionNotDeployedError } from './errors.js';
import { HostBridge } from './host-bridge.js';
import { toJson, validateOptions } from './options.js';
import type { BatchResult, BatchTask, Job, Outcome, PortAnnouncement, WorkerSettings } from './protocol.js';
import type {
  ModuleExports,
  PackageCode,
  Sandbox,
  SandboxCall,
  SandboxEvaluation,
  SandboxHost,
  SandboxOptions,
} from './types.js';

interface PendingJob {
  key: string | undefined;
  resolve(value: string): void;
  reject(err: Error): void;
}

type JobBody = Job extends infer J ? (J extends Job ? Omit<J, 'id'> : never) : never;

/**
 * The sandbox on the main thread: a piscina pool of `threads` workers (worker/index.ts) and a
 * micro-batching dispatcher. Jobs submitted in the same turn of the event loop are sent together
 * as one piscina task per worker, the way a group commit shares one fsync: a message per batch
 * instead of per call is what lets a 2-thread pool go well past one call per round trip.
 */
export class SandboxPool implements Sandbox {
  private readonly pool: Piscina<BatchTask, BatchResult>;
  private readonly bridge: HostBridge;
  private readonly logger: Logger;
  private readonly threadCount: number;
  private readonly timeoutMs: number;
  private readonly maxBatchSize: number;
  private readonly pending = new Map<number, PendingJob>();
  private queue: Job[] = [];
  private flushScheduled = false;
  private nextId = 1;
  private closed = false;
  /** Jobs in flight per package version, so `forget` can wait for them. */
  private readonly keyUse = new Map<string, number>();
  private readonly forgetWhenIdle = new Set<string>();
  /**
   * The code of every version submitted since it was last forgotten, taken from the host at the
   * first submit: a worker that asks for it later still gets it even if the registry has dropped
   * the version meanwhile (the call was accepted while it was deployed).
   */
  private readonly codeCache = new Map<string, PackageCode>();
  private readonly host: SandboxHost;

  constructor(options: SandboxOptions) {
    validateOptions(options);
    this.logger = options.logger;
    this.threadCount = options.threads;
    this.timeoutMs = options.timeoutMs;
    this.maxBatchSize = options.maxBatchSize ?? Infinity;
    this.host = options.host;
    this.bridge = new HostBridge(
      options.host,
      (key) => this.codeCache.get(key) ?? this.host.code(key),
      {
        timeoutMs: options.httpTimeoutMs,
        maxBytes: options.httpMaxBytes,
        maxInvokeDepth: options.maxInvokeDepth,
      },
      options.logger,
      (outcomes) => outcomes.forEach((o) => this.settle(o)),
    );
    this.pool = new Piscina<BatchTask, BatchResult>({
      filename: new URL('./worker/index.js', import.meta.url).href,
      minThreads: options.threads,
      maxThreads: options.threads,
      idleTimeout: Infinity,
      // A batch may wait on host calls for long; a worker takes others meanwhile.
      concurrentTasksPerWorker: 1024,
      // Piscina's default parks an idle worker in Atomics.wait, which would also park the worker's
      // own port (forget, host replies) and its isolates' callbacks.
      atomics: 'disabled',
      workerData: {
        timeoutMs: options.timeoutMs,
        memoryLimitMb: options.memoryLimitMb,
      } satisfies WorkerSettings,
    });
    this.pool.on('message', (message: unknown) => {
      const port = (message as Partial<PortAnnouncement> | null)?.junctionSandboxPort;
      if (port !== undefined) this.bridge.attach(port);
    });
    // A worker that dies with no task running is reported here; piscina replaces it.
    this.pool.on('error', (err: unknown) => this.logger.error({ err }, 'sandbox worker failed'));
  }

  /** The pool's worker threads (tests use it to kill one). */
  get workers(): readonly Worker[] {
    return this.pool.threads;
  }

  async inspect(code: PackageCode): Promise<ModuleExports[]> {
    return JSON.parse(await this.submit({ kind: 'inspect', code })) as ModuleExports[];
  }

  async call(call: SandboxCall): Promise<unknown> {
    const input = toJson(call.input, 'the input');
    const output = await this.submit({
      kind: 'call',
      key: call.key,
      module: call.module,
      fn: call.fn,
      input,
      user: { username: call.user.username, groups: [...call.user.groups] },
      depth: call.depth,
    });
    return JSON.parse(output);
  }

  async evaluate(evaluation: SandboxEvaluation): Promise<unknown[]> {
    const scope = toJson(evaluation.scope, 'the scope');
    const output = await this.submit({
      kind: 'evaluate',
      key: evaluation.key,
      expressions: [...evaluation.expressions],
      scope,
    });
    return JSON.parse(output) as unknown[];
  }

  forget(key: string): void {
    if (this.closed) return;
    if ((this.keyUse.get(key) ?? 0) > 0) this.forgetWhenIdle.add(key);
    else this.broadcastForget(key);
  }

  private broadcastForget(key: string): void {
    this.codeCache.delete(key);
    this.bridge.broadcast({ type: 'forget', key });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.queue) this.fail(job.id, new SandboxClosedError());
    this.queue = [];
    // Let jobs in flight end first (the watchdogs bound them): terminating a worker while one of
    // its isolates is still being disposed can abort the process.
    const deadline = Date.now() + this.timeoutMs + 1000;
    while (this.pending.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await this.pool.destroy();
    for (const id of [...this.pending.keys()]) this.fail(id, new SandboxClosedError());
  }

  private submit(body: JobBody): Promise<string> {
    if (this.closed) return Promise.reject(new SandboxClosedError());
    const id = this.nextId++;
    const key = body.kind === 'inspect' ? undefined : body.key;
    if (key !== undefined) {
      if (!this.codeCache.has(key) && !this.rememberCode(key)) {
        return Promise.reject(new VersionNotDeployedError(`package version ${key} is not deployed`));
      }
      this.keyUse.set(key, (this.keyUse.get(key) ?? 0) + 1);
    }
    return new Promise<string>((resolve, reject) => {
      this.pending.set(id, { key, resolve, reject });
      this.queue.push({ ...body, id } as Job);
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // setImmediate, not a microtask: callers answered by one batch resume in the same turn
        // and their next calls should make the next batch together.
        setImmediate(() => this.flush());
      }
    });
  }

  /** Takes the version's code from the host; false when the host does not have it. */
  private rememberCode(key: string): boolean {
    let code: PackageCode | undefined;
    try {
      code = this.host.code(key);
    } catch (err) {
      this.logger.error({ err, key }, 'the sandbox host failed to give package code');
    }
    if (code === undefined) return false;
    this.codeCache.set(key, code);
    return true;
  }

  private flush(): void {
    this.flushScheduled = false;
    const jobs = this.queue;
    this.queue = [];
    if (jobs.length === 0 || this.closed) return;
    const batches = Math.min(this.threadCount, jobs.length);
    const size = Math.min(Math.ceil(jobs.length / batches), this.maxBatchSize);
    for (let start = 0; start < jobs.length; start += size) this.dispatch(jobs.slice(start, start + size));
  }

  private dispatch(jobs: Job[]): void {
    this.pool.run({ jobs }).then(
      (result) => result.outcomes.forEach((o) => this.settle(o)),
      (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        if (!this.closed)
          this.logger.error({ err }, `a sandbox worker stopped; ${jobs.length} job(s) on it failed`);
        for (const job of jobs) {
          this.fail(
            job.id,
            this.closed
              ? new SandboxClosedError()
              : new SandboxCrashedError(`the sandbox worker running this ${job.kind} stopped (${message})`),
          );
        }
      },
    );
  }

  private settle(outcome: Outcome): void {
    if (outcome.ok) {
      const job = this.take(outcome.id);
      job?.resolve(outcome.value);
      return;
    }
    if (outcome.service) {
      const { name, message, code, status } = outcome.error;
      if (outcome.stack !== undefined)
        this.logger.debug({ stack: outcome.stack }, `service error: ${message}`);
      this.fail(
        outcome.id,
        new ServiceError(message, { name, ...(code ? { code } : {}), ...(status ? { status } : {}) }),
      );
    } else {
      this.fail(outcome.id, fromWireError(outcome.error));
    }
  }

  private fail(id: number, err: Error): void {
    this.take(id)?.reject(err);
  }

  private take(id: number): PendingJob | undefined {
    const job = this.pending.get(id);
    if (job === undefined) return undefined;
    this.pending.delete(id);
    if (job.key !== undefined) this.keyDone(job.key);
    return job;
  }

  private keyDone(key: string): void {
    const left = (this.keyUse.get(key) ?? 1) - 1;
    if (left > 0) {
      this.keyUse.set(key, left);
      return;
    }
    this.keyUse.delete(key);
    if (this.forgetWhenIdle.delete(key) && !this.closed) this.broadcastForget(key);
  }
}

import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../../core/clock.js';
import { InternalIdGenerator } from './ids.js';
import type { TrackerStore } from './store.js';
import type { TrackerDocument, TrackerRecorder } from './types.js';

export interface RecorderOptions {
  /** How long a document may wait in the queue before its batch is written. */
  flushIntervalMs: number;
  /** A batch is written at once when the queue reaches this size. */
  maxBatch: number;
  /** Past this many unwritten documents (storage failing), the oldest batches are dropped and counted. */
  maxQueued: number;
}

export const DEFAULT_RECORDER_OPTIONS: RecorderOptions = {
  flushIntervalMs: 50,
  maxBatch: 1000,
  maxQueued: 100_000,
};

/**
 * Queues tracker documents and writes them in batches off the request path: `record` only pushes
 * to an array; a timer on the app's clock (or a full batch) writes the queue as one page of the
 * store. Batches are written one after the other, in order. `close` writes everything still
 * queued.
 */
export class BatchingRecorder implements TrackerRecorder {
  private queue: TrackerDocument[] = [];
  /** Batches whose write failed, in order, each to be written again whole. */
  private failed: TrackerDocument[][] = [];
  private timer: TimerHandle | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly ids = new InternalIdGenerator();
  private closed = false;
  /** Counters for metrics and tests. */
  written = 0;
  dropped = 0;

  constructor(
    private readonly store: TrackerStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: RecorderOptions = DEFAULT_RECORDER_OPTIONS,
  ) {}

  record(doc: Omit<TrackerDocument, 'internalId'>): string {
    // The id is the time of recording (when the call was answered), so ids follow the order in
    // which batches are written; `timeReceived` keeps when the call arrived.
    const internalId = this.ids.next(this.clock.now());
    this.queue.push({ internalId, ...doc });
    if (this.queue.length >= this.options.maxBatch || this.closed) void this.flush();
    else this.timer ??= this.clock.setTimeout(() => void this.flush(), this.options.flushIntervalMs);
    return internalId;
  }

  /** Writes everything queued so far; resolves once it is written (or the failure logged). */
  flush(): Promise<void> {
    if (this.timer) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
    // A batch that failed is written again as it was, first: a batch is one page of the store,
    // and a page must not mix the documents of two batches.
    const batches = this.failed;
    this.failed = [];
    if (this.queue.length > 0) batches.push(this.queue);
    this.queue = [];
    for (const batch of batches) this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  /** Writes what is queued and keeps writing any later document at once (graceful shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    if (this.queued > 0) {
      this.logger.error({ documents: this.queued }, 'tracker documents could not be written before shutdown');
    }
  }

  /** Documents not written yet (queued, or in a batch waiting to be written again). */
  get queued(): number {
    return this.queue.length + this.failed.reduce((n, batch) => n + batch.length, 0);
  }

  private async write(batch: TrackerDocument[]): Promise<void> {
    try {
      await this.store.write(batch);
      this.written += batch.length;
    } catch (err) {
      this.logger.error({ err, documents: batch.length }, 'could not write tracker documents; will retry');
      this.failed.push(batch);
      // Bounded, so that a storage that keeps failing cannot eat the memory: the oldest go.
      while (this.queued > this.options.maxQueued && this.failed.length > 0) {
        const lost = this.failed.shift()!;
        this.dropped += lost.length;
        this.logger.error({ dropped: lost.length }, 'tracker queue full: oldest documents dropped');
      }
      if (!this.closed)
        this.timer ??= this.clock.setTimeout(() => void this.flush(), this.options.flushIntervalMs);
    }
  }
}

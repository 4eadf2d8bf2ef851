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
  /** Past this many queued documents (storage failing), the oldest are dropped and counted. */
  maxQueued: number;
}

export const DEFAULT_RECORDER_OPTIONS: RecorderOptions = {
  flushIntervalMs: 50,
  maxBatch: 1000,
  maxQueued: 100_000,
};

/**
 * Queues tracker documents and writes them in batches off the request path: `record` only pushes
 * to an array; a timer on the app's clock (or a full batch) writes the queue in one LevelDB batch.
 * Batches are written one after the other, in order. `close` writes everything still queued.
 */
export class BatchingRecorder implements TrackerRecorder {
  private queue: TrackerDocument[] = [];
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
    const received = Date.parse(doc.timeReceived);
    const internalId = this.ids.next(Number.isNaN(received) ? this.clock.now() : received);
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
    if (this.queue.length === 0) return this.writing;
    const batch = this.queue;
    this.queue = [];
    this.writing = this.writing.then(() => this.write(batch));
    return this.writing;
  }

  /** Writes what is queued and keeps writing any later document at once (graceful shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    if (this.queue.length > 0) {
      this.logger.error(
        { documents: this.queue.length },
        'tracker documents could not be written before shutdown',
      );
    }
  }

  get queued(): number {
    return this.queue.length;
  }

  private async write(batch: TrackerDocument[]): Promise<void> {
    try {
      await this.store.write(batch);
      this.written += batch.length;
    } catch (err) {
      this.logger.error({ err, documents: batch.length }, 'could not write tracker documents; will retry');
      // Back in front, in order; bounded so a storage that keeps failing cannot eat the memory.
      this.queue = batch.concat(this.queue);
      const excess = this.queue.length - this.options.maxQueued;
      if (excess > 0) {
        this.queue.splice(0, excess);
        this.dropped += excess;
        this.logger.error({ dropped: excess }, 'tracker queue full: oldest documents dropped');
      }
      if (!this.closed)
        this.timer ??= this.clock.setTimeout(() => void this.flush(), this.options.flushIntervalMs);
    }
  }
}

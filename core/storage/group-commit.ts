import type { AbstractBatchOperation, AbstractBatchOptions, AbstractLevel } from 'abstract-level';

type LevelOp = AbstractBatchOperation<AbstractLevel<string, string, unknown>, string, unknown>;

interface Waiter {
  ops: LevelOp[];
  durable: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: writers queue their ops and wait; one batch at a time goes to LevelDB, holding
 * everything that queued while the previous one was syncing. Many concurrent durable writers then
 * share a single fsync instead of paying one each.
 *
 * Ordering: every write (durable or not) passes through the same queue, so a later write to a key
 * can never be overtaken by an earlier one. A group is synced when any of its members asked for
 * durability. Each writer's ops stay contiguous, and a group is one LevelDB batch, so each
 * writer's ops are atomic.
 */
export class GroupCommit {
  private queue: Waiter[] = [];
  private flushing: Promise<void> | undefined;
  batches = 0;
  ops = 0;

  constructor(
    private readonly db: AbstractLevel<string, string, unknown>,
    private readonly maxOpsPerBatch = 8192,
  ) {}

  write(ops: LevelOp[], durable: boolean): Promise<void> {
    if (ops.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ ops, durable, resolve, reject });
      this.flushing ??= this.drain();
    });
  }

  /** Resolves once every write queued so far has been committed. */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async drain(): Promise<void> {
    // Start on the next microtask so writers issued in the same tick join the first group.
    await Promise.resolve();
    try {
      while (this.queue.length > 0) {
        const group = this.takeGroup();
        const ops = group.flatMap((w) => w.ops);
        const sync = group.some((w) => w.durable);
        try {
          // `sync` is classic-level's option (fsync the log); memory-level ignores it.
          await this.db.batch(ops, { sync } as AbstractBatchOptions<string, unknown>);
          this.batches++;
          this.ops += ops.length;
          for (const w of group) w.resolve();
        } catch (err) {
          for (const w of group) w.reject(err);
        }
      }
    } finally {
      this.flushing = undefined;
    }
  }

  private takeGroup(): Waiter[] {
    let count = 0;
    let n = 0;
    while (n < this.queue.length) {
      const size = this.queue[n]!.ops.length;
      if (n > 0 && count + size > this.maxOpsPerBatch) break;
      count += size;
      n++;
    }
    return this.queue.splice(0, n);
  }
}

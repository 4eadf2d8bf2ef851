import type { AbstractChainedBatchWriteOptions, AbstractLevel } from 'abstract-level';

/**
 * An op already in LevelDB's terms: the key with its store's prefix, the value JSON-encoded
 * (`undefined` for a delete). Encoding up front keeps the commit loop free of abstract-level's
 * per-op sublevel and encoding work, which dominated the write path.
 */
export interface RawOp {
  key: string;
  value: string | undefined;
}

interface Waiter {
  ops: RawOp[];
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
    private readonly db: AbstractLevel<string, string, string>,
    private readonly maxOpsPerBatch = 8192,
  ) {}

  write(ops: RawOp[], durable: boolean): Promise<void> {
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
        const sync = group.some((w) => w.durable);
        let count = 0;
        try {
          // A chained batch on the root database with the root's utf8 encodings: no per-op
          // options, no sublevel lookups.
          const batch = this.db.batch();
          try {
            for (const w of group) {
              for (const op of w.ops) {
                if (op.value === undefined) batch.del(op.key);
                else batch.put(op.key, op.value);
              }
              count += w.ops.length;
            }
          } catch (err) {
            await batch.close();
            throw err;
          }
          // `sync` is classic-level's option (fsync the log); memory-level ignores it.
          await batch.write({ sync } as AbstractChainedBatchWriteOptions);
          this.batches++;
          this.ops += count;
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

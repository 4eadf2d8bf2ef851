/**
 * Per-context serialization: work on one context id runs one piece at a time, in arrival order,
 * while work on different ids runs in parallel. A chain exists only while work is pending, so an
 * idle context costs no memory.
 */
export class KeyedSerializer {
  private readonly tails = new Map<number, Promise<unknown>>();

  /** Runs `work` after every earlier piece of work on `key` has settled. */
  run<T>(key: number, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** True while work on `key` is pending. */
  busy(key: number): boolean {
    return this.tails.has(key);
  }

  /** Number of contexts with pending work. */
  get size(): number {
    return this.tails.size;
  }

  /** Resolves once no work is pending. */
  async idle(): Promise<void> {
    while (this.tails.size > 0) await Promise.all([...this.tails.values()]);
  }
}

/** Runs `fn` over `items` with at most `limit` at a time; resolves with results in order. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

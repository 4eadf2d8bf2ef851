/**
 * Descending streams of context ids over the indexes, with `seek` so an intersection can jump over
 * a long run of ids another stream lacks instead of reading them one by one (a few steps first,
 * then a fresh LevelDB iterator starting at the target: galloping, without a seek in the Store
 * interface). Intersections and unions of streams are streams too.
 */
import type { Store } from '../../../core/storage/types.js';

export interface IdStream {
  /** The next id, descending; undefined at the end. */
  next(): Promise<number | undefined>;
  /** The next id that is at most `max` (skipping larger ones); undefined at the end. */
  seek(max: number): Promise<number | undefined>;
  close(): Promise<void>;
}

/** Steps tried before a seek opens a new iterator. */
const STEPS_BEFORE_REOPEN = 8;

/** Ids of keys `<prefix><16-digit id>` of a store, newest first. */
export class KeyIdStream implements IdStream {
  private it: AsyncIterator<string>;

  constructor(
    private readonly store: Store,
    private readonly prefix: string,
  ) {
    this.it = this.open(undefined);
  }

  async next(): Promise<number | undefined> {
    const r = await this.it.next();
    return r.done ? undefined : Number(r.value.slice(this.prefix.length));
  }

  async seek(max: number): Promise<number | undefined> {
    for (let i = 0; i < STEPS_BEFORE_REOPEN; i++) {
      const id = await this.next();
      if (id === undefined || id <= max) return id;
    }
    await this.it.return?.();
    this.it = this.open(max);
    return this.next();
  }

  async close(): Promise<void> {
    await this.it.return?.();
  }

  private open(max: number | undefined): AsyncIterator<string> {
    const lte = max === undefined ? `${this.prefix}\uffff` : `${this.prefix}${String(max).padStart(16, '0')}`;
    return this.store.keys({ gte: this.prefix, lte, reverse: true })[Symbol.asyncIterator]();
  }
}

/** Ids in every one of `streams`. */
export class IntersectionStream implements IdStream {
  private current: (number | undefined)[] = [];

  constructor(private readonly streams: IdStream[]) {}

  async next(): Promise<number | undefined> {
    this.current = await Promise.all(this.streams.map((s) => s.next()));
    return this.align();
  }

  async seek(max: number): Promise<number | undefined> {
    this.current = await Promise.all(this.streams.map((s) => s.seek(max)));
    return this.align();
  }

  async close(): Promise<void> {
    await Promise.all(this.streams.map((s) => s.close()));
  }

  /** Moves every stream down to the smallest current id until all agree. */
  private async align(): Promise<number | undefined> {
    const cur = this.current;
    for (;;) {
      if (cur.some((v) => v === undefined)) return undefined;
      const min = Math.min(...(cur as number[]));
      if (cur.every((v) => v === min)) return min;
      for (let i = 0; i < cur.length; i++) {
        if (cur[i]! > min) cur[i] = await this.streams[i]!.seek(min);
      }
    }
  }
}

/** Ids in any of `streams` (each once). */
export class UnionStream implements IdStream {
  private heads: (number | undefined)[] | undefined;

  constructor(private readonly streams: IdStream[]) {}

  async next(): Promise<number | undefined> {
    this.heads ??= await Promise.all(this.streams.map((s) => s.next()));
    return this.take();
  }

  async seek(max: number): Promise<number | undefined> {
    this.heads ??= await Promise.all(this.streams.map((s) => s.next()));
    for (let i = 0; i < this.streams.length; i++) {
      if (this.heads[i] !== undefined && this.heads[i]! > max)
        this.heads[i] = await this.streams[i]!.seek(max);
    }
    return this.take();
  }

  async close(): Promise<void> {
    await Promise.all(this.streams.map((s) => s.close()));
  }

  /** Returns the largest head and advances every stream at it. */
  private async take(): Promise<number | undefined> {
    const heads = this.heads!;
    const present = heads.filter((h): h is number => h !== undefined);
    if (present.length === 0) return undefined;
    const max = Math.max(...present);
    for (let i = 0; i < heads.length; i++) {
      if (heads[i] === max) heads[i] = await this.streams[i]!.next();
    }
    return max;
  }
}

/** A stream as an async iterable (closing it when the loop ends early). */
export async function* iterate(stream: IdStream): AsyncIterableIterator<number> {
  try {
    for (let id = await stream.next(); id !== undefined; id = await stream.next()) yield id;
  } finally {
    await stream.close();
  }
}

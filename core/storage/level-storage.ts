import { mkdirSync } from 'node:fs';
import type { AbstractLevel, AbstractSublevel } from 'abstract-level';
import { ClassicLevel } from 'classic-level';
import { MemoryLevel } from 'memory-level';
import { StorageError } from '../errors.js';
import { GroupCommit, type RawOp } from './group-commit.js';
import type { BatchOp, Range, Storage, StorageStatus, Store, WriteOptions } from './types.js';

// The root database keeps utf8 keys and values (JSON text, encoded by `write`); each store is a
// sublevel that decodes JSON on reads.
type Root = AbstractLevel<string, string, string>;
type Sub = AbstractSublevel<Root, string, string, unknown>;

/**
 * Storage on an abstract-level database: ClassicLevel (LevelDB on disk) in production,
 * MemoryLevel in tests. Both pass the same storage suite (test/core/storage/suite.ts).
 */
export class LevelStorage implements Storage {
  private readonly commit: GroupCommit;
  private readonly stores = new Map<string, LevelStore>();
  private state: StorageStatus = 'closed';

  constructor(
    readonly kind: 'leveldb' | 'memory',
    private readonly db: Root,
  ) {
    this.commit = new GroupCommit(db);
  }

  get status(): StorageStatus {
    return this.state;
  }

  async open(): Promise<void> {
    this.state = 'opening';
    try {
      await this.db.open();
      this.state = 'open';
    } catch (err) {
      this.state = 'failed';
      const reason = (err as { cause?: Error }).cause?.message ?? (err as Error).message;
      throw new StorageError(`cannot open storage: ${reason}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'closing';
    await this.commit.idle();
    await this.db.close();
    this.state = 'closed';
  }

  store(name: string): Store {
    return this.storeAt([name]);
  }

  stats(): { batches: number; ops: number } {
    return { batches: this.commit.batches, ops: this.commit.ops };
  }

  /** @internal */
  storeAt(path: string[]): LevelStore {
    for (const part of path) {
      if (!/^[A-Za-z0-9_.-]+$/.test(part)) throw new StorageError(`invalid store name "${part}"`);
    }
    const key = path.join('/');
    let store = this.stores.get(key);
    if (!store) {
      // A store's own keys live under a `#` sublevel of its path, so a nested store (another
      // name under the same path) never shows up in the parent's key range.
      const sub = this.db.sublevel<string, unknown>([...path, '#'], {
        valueEncoding: 'json',
      }) as unknown as Sub;
      store = new LevelStore(this, key, path, sub);
      this.stores.set(key, store);
    }
    return store;
  }

  /** @internal */
  write(ops: BatchOp[], self: LevelStore, options: WriteOptions | undefined): Promise<void> {
    if (this.state !== 'open') return Promise.reject(new StorageError(`storage is ${this.state}`));
    const rawOps: RawOp[] = new Array(ops.length);
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      const target = op.store === undefined ? self : op.store;
      if (!(target instanceof LevelStore) || target.owner !== this) {
        throw new StorageError('a batch may only write to stores of the same storage');
      }
      if (typeof op.key !== 'string' || op.key.length === 0) {
        throw new StorageError('a key must be a non-empty string');
      }
      if (op.type === 'put') {
        const value = op.value === undefined ? undefined : JSON.stringify(op.value);
        if (value === undefined) throw new StorageError(`value of ${op.key} is undefined`);
        rawOps[i] = { key: target.prefix + op.key, value };
      } else {
        rawOps[i] = { key: target.prefix + op.key, value: undefined };
      }
    }
    return this.commit.write(rawOps, options?.durable ?? true);
  }
}

class LevelStore implements Store {
  /** The sublevel's key prefix in the root database. */
  readonly prefix: string;

  constructor(
    readonly owner: LevelStorage,
    readonly path: string,
    private readonly parts: string[],
    readonly sub: Sub,
  ) {
    this.prefix = sub.prefix;
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.sub.get(key) as Promise<T | undefined>;
  }

  getMany<T>(keys: string[]): Promise<(T | undefined)[]> {
    return this.sub.getMany(keys) as Promise<(T | undefined)[]>;
  }

  put(key: string, value: unknown, options?: WriteOptions): Promise<void> {
    return this.batch([{ type: 'put', key, value }], options);
  }

  del(key: string, options?: WriteOptions): Promise<void> {
    return this.batch([{ type: 'del', key }], options);
  }

  async batch(ops: BatchOp[], options?: WriteOptions): Promise<void> {
    await this.owner.write(ops, this, options);
  }

  async *entries<T>(range: Range = {}): AsyncIterableIterator<[string, T]> {
    for await (const [k, v] of this.sub.iterator(levelRange(range))) yield [k, v as T];
  }

  async *keys(range: Range = {}): AsyncIterableIterator<string> {
    for await (const k of this.sub.keys(levelRange(range))) yield k;
  }

  async clear(range: Range = {}): Promise<void> {
    await this.sub.clear(levelRange(range));
  }

  store(name: string): Store {
    return this.owner.storeAt([...this.parts, name]);
  }
}

function levelRange(range: Range): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['gt', 'gte', 'lt', 'lte', 'reverse'] as const) {
    if (range[k] !== undefined) out[k] = range[k];
  }
  out.limit = range.limit ?? -1;
  return out;
}

/** LevelDB on disk under `dir` (created if missing). */
export function createLevelStorage(dir: string): LevelStorage {
  mkdirSync(dir, { recursive: true });
  return new LevelStorage('leveldb', new ClassicLevel<string, string>(dir) as never);
}

/** An in-memory storage with the same behaviour, for tests. */
export function createMemoryStorage(): LevelStorage {
  return new LevelStorage('memory', new MemoryLevel<string, string>() as never);
}

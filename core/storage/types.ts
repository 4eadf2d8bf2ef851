/**
 * The storage interface plugins see. One LevelDB is opened by the core; each plugin gets named
 * stores (LevelDB sublevels) holding JSON values under string keys. Writes are durable by default:
 * the promise resolves only once the data is on disk (fsync'd), shared with concurrent writers
 * through a group commit. See docs/storage.md.
 */

export interface Range {
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
  reverse?: boolean;
  limit?: number;
}

export interface WriteOptions {
  /**
   * true (the default): resolve only after the write is synced to disk.
   * false: resolve once LevelDB has it in its log (survives a process crash, not a power loss
   * or kernel crash); still ordered with durable writes.
   */
  durable?: boolean;
}

export type BatchOp =
  { type: 'put'; key: string; value: unknown; store?: Store } | { type: 'del'; key: string; store?: Store };

export interface Store {
  /** The store's path, e.g. `flux/contexts`. */
  readonly path: string;
  get<T = unknown>(key: string): Promise<T | undefined>;
  getMany<T = unknown>(keys: string[]): Promise<(T | undefined)[]>;
  put(key: string, value: unknown, options?: WriteOptions): Promise<void>;
  del(key: string, options?: WriteOptions): Promise<void>;
  /** Atomic: every op or none. An op with `store` writes to that store instead (same Storage). */
  batch(ops: BatchOp[], options?: WriteOptions): Promise<void>;
  entries<T = unknown>(range?: Range): AsyncIterableIterator<[string, T]>;
  keys(range?: Range): AsyncIterableIterator<string>;
  /** Deletes every key in the range (not atomic with other writes). */
  clear(range?: Range): Promise<void>;
  /** A nested store, e.g. `flux` → `flux/contexts`. */
  store(name: string): Store;
}

export type StorageStatus = 'closed' | 'opening' | 'open' | 'closing' | 'failed';

export interface Storage {
  readonly kind: 'leveldb' | 'memory';
  readonly status: StorageStatus;
  open(): Promise<void>;
  /** Waits for pending writes, then closes. */
  close(): Promise<void>;
  /** A top-level named store, e.g. `auth`, `flux`. */
  store(name: string): Store;
  /** Counters of the group commit, for metrics and benchmarks. */
  stats(): { batches: number; ops: number };
}

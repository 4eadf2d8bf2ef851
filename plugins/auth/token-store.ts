import type { Clock } from '../../core/clock.js';
import type { BatchOp, Store } from '../../core/storage/types.js';

export type TokenKind = 'access' | 'refresh';

/** What is kept about an issued token, under the SHA-256 of the token (never the token). */
export interface TokenRecord {
  kind: TokenKind;
  /** The grant the token belongs to: one password grant and every refresh that followed. */
  family: string;
  username: string;
  clientId: string;
  scope: string;
  /** Epoch ms. */
  issuedAt: number;
  /** Epoch ms; the token is dead from this instant on. */
  expiresAt: number;
  /** A refresh token already exchanged: kept until it expires only to detect its reuse. */
  retired?: true;
}

/**
 * Every live token of the server, in memory, mirrored in LevelDB (`auth/tokens`). Lookups are
 * Map reads: the bearer check never touches the disk. Mutations change memory synchronously and
 * return the batch ops that make the change durable; the caller writes them (together with other
 * ops, atomically) and awaits them before answering. Changing memory first is what makes a
 * revocation effective before its answer and serialises two concurrent uses of one refresh token
 * (the second sees the token retired).
 */
export class TokenStore {
  private readonly byHash = new Map<string, TokenRecord>();
  private readonly families = new Map<string, Set<string>>();

  constructor(
    readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Loads every unexpired token; expired ones are deleted from disk (not needed for an answer). */
  async load(): Promise<void> {
    const now = this.clock.now();
    const dead: BatchOp[] = [];
    for await (const [hash, record] of this.store.entries<TokenRecord>()) {
      if (record.expiresAt <= now) dead.push({ type: 'del', key: hash });
      else this.remember(hash, record);
    }
    if (dead.length > 0) await this.store.batch(dead, { durable: false });
  }

  get size(): number {
    return this.byHash.size;
  }

  /** The record of a token hash, expired or retired ones included (callers decide). */
  get(hash: string): TokenRecord | undefined {
    return this.byHash.get(hash);
  }

  /** The record of a token that may be used right now: known, unexpired, not retired. */
  live(hash: string): TokenRecord | undefined {
    const record = this.byHash.get(hash);
    if (record === undefined || record.retired || record.expiresAt <= this.clock.now()) return undefined;
    return record;
  }

  add(hash: string, record: TokenRecord): BatchOp {
    this.remember(hash, record);
    // A copy: the op is encoded later (group commit) and the record may change meanwhile.
    return { type: 'put', key: hash, value: { ...record }, store: this.store };
  }

  retire(hash: string): BatchOp[] {
    const record = this.byHash.get(hash);
    if (record === undefined) return [];
    record.retired = true;
    return [{ type: 'put', key: hash, value: { ...record }, store: this.store }];
  }

  /** Undoes `retire` (a write that failed); no op to write, disk never saw the change. */
  unretire(hash: string): void {
    const record = this.byHash.get(hash);
    if (record) delete record.retired;
  }

  /** Drops one token from memory; the op deletes it on disk. */
  remove(hash: string): BatchOp[] {
    const record = this.byHash.get(hash);
    if (record === undefined) return [];
    this.byHash.delete(hash);
    const members = this.families.get(record.family);
    members?.delete(hash);
    if (members?.size === 0) this.families.delete(record.family);
    return [{ type: 'del', key: hash, store: this.store }];
  }

  /** Drops every token of a grant (revocation, refresh-token reuse). */
  removeFamily(family: string): BatchOp[] {
    const members = this.families.get(family);
    if (members === undefined) return [];
    return [...members].flatMap((hash) => this.remove(hash));
  }

  /** Drops expired tokens from memory; the ops delete them on disk. */
  sweep(): BatchOp[] {
    const now = this.clock.now();
    const ops: BatchOp[] = [];
    for (const [hash, record] of this.byHash) {
      if (record.expiresAt <= now) ops.push(...this.remove(hash));
    }
    return ops;
  }

  private remember(hash: string, record: TokenRecord): void {
    this.byHash.set(hash, record);
    let members = this.families.get(record.family);
    if (members === undefined) {
      members = new Set();
      this.families.set(record.family, members);
    }
    members.add(hash);
  }
}

import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { UserEntry } from '../../core/config/schema.js';
import { hashPassword, verifyPassword } from '../../core/password.js';
import type { BatchOp, Store } from '../../core/storage/types.js';
import type { UserRef } from '../../core/services/types.js';

interface StoredAdmin {
  username: string;
  password: string;
  groups: string[];
}

/** Per user, persisted: what `token_issued_counter` and `last_token_issued_date` report. */
export interface IssueStats {
  counter: number;
  /** Epoch ms of the last token issued. */
  lastIssuedAt: number;
}

export const FIRST_ADMIN = 'admin';
const ADMIN_KEY = 'first-admin';

/**
 * The users who may log in: those of config `users`, or, when that list is empty, the first
 * administrator created on the first start (its hash kept in `auth/admin`). Also keeps the
 * per-user issue statistics (`auth/users`), in memory and on disk.
 */
export class UserDirectory {
  private readonly users = new Map<string, UserEntry>();
  private readonly refs = new Map<string, UserRef>();
  private readonly stats = new Map<string, IssueStats>();
  // Checked against when the username is unknown, so a wrong name costs the same scrypt as a
  // wrong password and response times do not tell which names exist.
  private decoyHash = '';

  constructor(
    private readonly adminStore: Store,
    readonly statsStore: Store,
    private readonly logger: Logger,
    /** Where the first administrator's password is shown, once. */
    private readonly announce: (text: string) => void,
  ) {}

  /** `createAdmin: false` (for `junction check`) never creates the first administrator. */
  async load(configured: UserEntry[], createAdmin = true): Promise<void> {
    const admin = configured.length > 0 ? undefined : await this.firstAdmin(createAdmin);
    const entries = admin ? [admin] : configured;
    for (const u of entries) {
      this.users.set(u.username, u);
      this.refs.set(
        u.username,
        Object.freeze({ username: u.username, groups: Object.freeze([...u.groups]) }) as UserRef,
      );
    }
    for await (const [username, s] of this.statsStore.entries<IssueStats>()) this.stats.set(username, s);
    this.decoyHash = await hashPassword(randomBytes(16).toString('base64url'));
  }

  /** The user of that name (groups included), or undefined. */
  user(username: string): UserRef | undefined {
    return this.refs.get(username);
  }

  /** Checks a password (async scrypt on the threadpool); false for an unknown user too. */
  async verify(username: string, password: string): Promise<UserRef | undefined> {
    const entry = this.users.get(username);
    const ok = await verifyPassword(password, entry?.password ?? this.decoyHash);
    return ok && entry ? this.refs.get(username) : undefined;
  }

  /**
   * Counts one more token issued to `username` at `now`; memory changes at once (so concurrent
   * grants count distinctly), the op persists it.
   */
  recordIssue(username: string, now: number): { stats: IssueStats; op: BatchOp } {
    const previous = this.stats.get(username);
    const stats = { counter: (previous?.counter ?? 0) + 1, lastIssuedAt: now };
    this.stats.set(username, stats);
    return { stats, op: { type: 'put', key: username, value: stats, store: this.statsStore } };
  }

  private async firstAdmin(create: boolean): Promise<UserEntry | undefined> {
    const stored = await this.adminStore.get<StoredAdmin>(ADMIN_KEY);
    if (stored || !create) return stored;
    const password = randomBytes(18).toString('base64url');
    const admin: StoredAdmin = {
      username: FIRST_ADMIN,
      password: await hashPassword(password),
      groups: ['administrators'],
    };
    // Durable before the password is shown: a password shown must work after a crash.
    await this.adminStore.put(ADMIN_KEY, admin);
    this.announce(
      `Junction created the user "${FIRST_ADMIN}" (group administrators) with the password: ${password}\n` +
        'It is shown this once; only its hash is kept. Put users in config.yaml to replace it.\n',
    );
    this.logger.warn(
      { username: FIRST_ADMIN },
      'config has no users: created the first administrator; its password was printed once on standard output',
    );
    return admin;
  }
}

import type { Clock } from '../../core/clock.js';

export interface ThrottleSettings {
  /** Failed password grants allowed per user, and per client address, within the window. */
  maxFailures: number;
  windowMs: number;
  /** Bound on the keys tracked, so a flood of invented usernames cannot exhaust memory. */
  maxKeys?: number;
}

/** A password check admitted by the throttle; exactly one of the two must be called. */
export interface LoginAttempt {
  succeeded(): void;
  failed(): void;
}

export type Admission = { attempt: LoginAttempt } | { retryAfter: number };

/**
 * Brute-force protection of the password grant: failures are counted per username and per client
 * address in a sliding window; while either has reached the limit, password grants for it are
 * refused (429 with Retry-After) without checking the password. A success clears the user's
 * count but not the address's earlier failures (an attacker with one valid account must not
 * reset it). Kept in memory: a restart clears it.
 *
 * Checks in flight count against the limit too: when failures plus checks running reach it, a
 * further attempt waits for a running one to finish. Guesses sent in parallel thus cannot all be
 * checked before the first failures are counted, while parallel logins that succeed only queue.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, (() => void)[]>();
  private readonly maxKeys: number;

  constructor(
    private readonly clock: Clock,
    private readonly settings: ThrottleSettings,
  ) {
    this.maxKeys = settings.maxKeys ?? 100_000;
  }

  /** Admits a password check for this user from this address, or says how long to wait. */
  async admit(username: string, address: string): Promise<Admission> {
    const keys = [`u:${username}`, `a:${address}`];
    for (;;) {
      const retryAfter = Math.max(...keys.map((k) => this.waitFor(k)));
      if (retryAfter > 0) return { retryAfter };
      const full = keys.find(
        (k) => this.recent(k).length + (this.running.get(k) ?? 0) >= this.settings.maxFailures,
      );
      if (full === undefined) break;
      await new Promise<void>((resolve) => {
        const list = this.waiting.get(full) ?? [];
        list.push(resolve);
        this.waiting.set(full, list);
      });
    }
    for (const k of keys) this.running.set(k, (this.running.get(k) ?? 0) + 1);
    let settled = false;
    const settle = (failed: boolean) => {
      if (settled) return;
      settled = true;
      for (const k of keys) {
        const n = (this.running.get(k) ?? 1) - 1;
        if (n > 0) this.running.set(k, n);
        else this.running.delete(k);
        if (failed) this.push(k);
      }
      if (!failed) this.failures.delete(keys[0]!);
      for (const k of keys) this.wake(k);
    };
    return { attempt: { succeeded: () => settle(false), failed: () => settle(true) } };
  }

  /** Seconds until a password grant for this user from this address may be tried, or 0. */
  retryAfter(username: string, address: string): number {
    return Math.max(this.waitFor(`u:${username}`), this.waitFor(`a:${address}`));
  }

  /** Forgets failures that left the window (called periodically). */
  prune(): void {
    for (const key of [...this.failures.keys()]) this.recent(key);
  }

  private wake(key: string): void {
    const list = this.waiting.get(key);
    if (list === undefined) return;
    this.waiting.delete(key);
    for (const resolve of list) resolve();
  }

  private waitFor(key: string): number {
    const times = this.recent(key);
    if (times.length < this.settings.maxFailures) return 0;
    // Allowed again when enough of the failures have left the window.
    const freeAt = times[times.length - this.settings.maxFailures]! + this.settings.windowMs;
    return Math.max(1, Math.ceil((freeAt - this.clock.now()) / 1000));
  }

  private recent(key: string): number[] {
    const times = this.failures.get(key);
    if (times === undefined) return [];
    const since = this.clock.now() - this.settings.windowMs;
    let drop = 0;
    while (drop < times.length && times[drop]! <= since) drop++;
    if (drop > 0) times.splice(0, drop);
    if (times.length === 0) this.failures.delete(key);
    return times;
  }

  private push(key: string): void {
    const times = this.recent(key);
    if (times.length === 0) {
      if (this.failures.size >= this.maxKeys) {
        // Evict the oldest key (Map iteration is insertion order).
        const oldest = this.failures.keys().next().value;
        if (oldest !== undefined) this.failures.delete(oldest);
      }
      this.failures.set(key, times);
    }
    times.push(this.clock.now());
    // Never keep more than the limit needs.
    if (times.length > this.settings.maxFailures) times.splice(0, times.length - this.settings.maxFailures);
  }
}

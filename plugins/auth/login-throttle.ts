import type { Clock } from '../../core/clock.js';

export interface ThrottleSettings {
  /** Failed password grants allowed per user, and per client address, within the window. */
  maxFailures: number;
  windowMs: number;
  /** Bound on the keys tracked, so a flood of invented usernames cannot exhaust memory. */
  maxKeys?: number;
}

/**
 * Brute-force protection of the password grant: failures are counted per username and per client
 * address in a sliding window; while either has reached the limit, password grants for it are
 * refused (429 with Retry-After) without checking the password. A success clears the user's
 * count but not the address's earlier failures (an attacker with one valid account must not
 * reset it). Kept in memory: a restart clears it.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();
  private readonly maxKeys: number;

  constructor(
    private readonly clock: Clock,
    private readonly settings: ThrottleSettings,
  ) {
    this.maxKeys = settings.maxKeys ?? 100_000;
  }

  /** Seconds until a password grant for this user from this address may be tried, or 0. */
  retryAfter(username: string, address: string): number {
    return Math.max(this.waitFor(`u:${username}`), this.waitFor(`a:${address}`));
  }

  /**
   * Counts an attempt as a failure from the start, so that guesses sent in parallel are counted
   * before their (slow) password checks finish. Call the returned function when the attempt
   * succeeds: it takes the attempt back from the address and clears the user's count.
   */
  begin(username: string, address: string): () => void {
    this.push(`u:${username}`);
    const at = this.push(`a:${address}`);
    return () => {
      this.failures.delete(`u:${username}`);
      const times = this.failures.get(`a:${address}`);
      const i = times?.lastIndexOf(at) ?? -1;
      if (i >= 0) times!.splice(i, 1);
      if (times?.length === 0) this.failures.delete(`a:${address}`);
    };
  }

  /** Forgets failures that left the window (called periodically). */
  prune(): void {
    for (const key of [...this.failures.keys()]) this.recent(key);
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

  private push(key: string): number {
    const times = this.recent(key);
    if (times.length === 0) {
      if (this.failures.size >= this.maxKeys) {
        // Evict the oldest key (Map iteration is insertion order).
        const oldest = this.failures.keys().next().value;
        if (oldest !== undefined) this.failures.delete(oldest);
      }
      this.failures.set(key, times);
    }
    const now = this.clock.now();
    times.push(now);
    // Never keep more than the limit needs.
    if (times.length > this.settings.maxFailures) times.splice(0, times.length - this.settings.maxFailures);
    return now;
  }
}

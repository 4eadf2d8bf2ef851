/**
 * Workflow timers. Deadlines live durably in the context store's `next` index; only those within
 * `horizonMs` are held in memory, in a TimingWheel, so a million waiting timers cost no heap until
 * they come near. A refill every `horizonMs / 2` loads the next stretch of the index. The wheel is
 * driven by one Clock timer set to its next wake-up, so FakeClock tests control it fully.
 */
import type { Clock, TimerHandle } from '../../../core/clock.js';
import { TimingWheel } from './timing-wheel.js';

export interface TimerSource {
  /** `[deadline, id]` with `after < deadline <= until`, earliest first. */
  deadlines(after: number, until: number): AsyncIterable<[number, number]>;
}

export interface TimerSchedulerOptions {
  /** How far ahead deadlines are held in memory (default 5 minutes). */
  horizonMs?: number;
  /**
   * Wheel resolution (default 1 ms). A deadline fires at the end of its tick, never before it, so
   * the tick is lateness added to every timer: 10 ms ticks made timers ~5 ms late on average.
   */
  tickMs?: number;
  /** Called when a deadline is due, with how late it fires (ms). */
  onLateness?: (lateMs: number) => void;
  onError?: (err: unknown) => void;
}

export class TimerScheduler {
  private readonly horizonMs: number;
  private readonly tickMs: number;
  private wheel: TimingWheel | undefined;
  /** The deadline held per context: de-duplicates, and lets a stale one be skipped. */
  private readonly held = new Map<number, number>();
  private loadedUntil = -1;
  private wakeup: { handle: TimerHandle; at: number } | undefined;
  private refillTimer: TimerHandle | undefined;
  private refilling: Promise<void> | undefined;
  private running = false;
  /** Deadlines fired so far. */
  private fired = 0;

  constructor(
    private readonly clock: Clock,
    private readonly source: TimerSource,
    private readonly fire: (id: number, deadline: number) => void,
    private readonly options: TimerSchedulerOptions = {},
  ) {
    this.horizonMs = options.horizonMs ?? 5 * 60_000;
    this.tickMs = options.tickMs ?? 1;
    if (this.horizonMs < 1000) throw new Error('horizonMs must be at least 1000');
  }

  /** Timers held in memory. */
  get size(): number {
    return this.held.size;
  }

  /**
   * Loads every deadline up to the horizon and starts refilling. Overdue deadlines fire at once;
   * resolves with how many there were.
   */
  async start(): Promise<number> {
    this.running = true;
    this.wheel = new TimingWheel(this.clock.now(), { tickMs: this.tickMs });
    const before = this.fired;
    await this.refill();
    this.scheduleRefill();
    return this.fired - before;
  }

  stop(): void {
    this.running = false;
    if (this.wakeup) this.clock.clearTimeout(this.wakeup.handle);
    if (this.refillTimer) this.clock.clearTimeout(this.refillTimer);
    this.wakeup = undefined;
    this.refillTimer = undefined;
    this.held.clear();
  }

  /** Waits for a refill in progress (tests). */
  async idle(): Promise<void> {
    while (this.refilling) await this.refilling;
  }

  /**
   * A context now waits until `deadline` (already durable in the index). Deadlines past the
   * loaded horizon are left to the refill.
   */
  schedule(id: number, deadline: number): void {
    if (!this.running || deadline > this.loadedUntil) return;
    this.hold(id, deadline);
    // The armed wake-up comes no later than this deadline: it fires or re-arms in time, so the
    // wheel is not searched for its next wake-up on every new timer.
    if (this.wakeup && this.wakeup.at <= deadline) return;
    this.arm();
  }

  private hold(id: number, deadline: number): void {
    if (this.held.get(id) === deadline) return;
    // The wheel only moves when its wake-up fires; bring it to now first, so its position is
    // never far behind the clock (an idle wheel after a long quiet spell, a clock set forward).
    for (const e of this.wheel!.advance(this.clock.now())) this.due(e.id, e.deadline);
    this.held.set(id, deadline);
    if (!this.wheel!.add({ id, deadline })) this.due(id, deadline);
  }

  private due(id: number, deadline: number): void {
    // A deadline replaced since it was held is stale: the context no longer waits for it.
    if (this.held.get(id) !== deadline) return;
    this.held.delete(id);
    this.fired++;
    this.options.onLateness?.(Math.max(0, this.clock.now() - deadline));
    this.fire(id, deadline);
  }

  private refill(): Promise<void> {
    this.refilling ??= (async () => {
      try {
        // Raised before the scan: a deadline committed meanwhile is within it and `schedule`
        // holds it; one the scan also finds is de-duplicated by `held`.
        const from = this.loadedUntil;
        this.loadedUntil = this.clock.now() + this.horizonMs;
        for await (const [deadline, id] of this.source.deadlines(from, this.loadedUntil)) {
          if (!this.running) return;
          this.hold(id, deadline);
        }
        this.arm();
      } catch (err) {
        this.options.onError?.(err);
      } finally {
        this.refilling = undefined;
      }
    })();
    return this.refilling;
  }

  private scheduleRefill(): void {
    if (!this.running) return;
    this.refillTimer = this.clock.setTimeout(() => {
      void this.refill().then(() => this.scheduleRefill());
    }, this.horizonMs / 2);
  }

  /** Sets the one clock timer to the wheel's next wake-up. */
  private arm(): void {
    if (!this.running) return;
    const at = this.wheel!.nextWakeup();
    if (this.wakeup && this.wakeup.at === at) return;
    if (this.wakeup) this.clock.clearTimeout(this.wakeup.handle);
    this.wakeup = undefined;
    if (at === undefined) return;
    const handle = this.clock.setTimeout(() => {
      this.wakeup = undefined;
      for (const e of this.wheel!.advance(this.clock.now())) this.due(e.id, e.deadline);
      this.arm();
    }, at - this.clock.now());
    this.wakeup = { handle, at };
  }
}

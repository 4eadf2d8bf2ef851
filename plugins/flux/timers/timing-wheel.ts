/**
 * A hierarchical timing wheel (Varghese & Lauck): `levels` wheels of `slots` slots, level 0 with
 * one slot per tick, each higher level with one slot per full turn of the level below. Adding and
 * firing an entry are O(1) amortized; an entry moves down a level when its slot comes round
 * ("cascading"). The wheel keeps no clock of its own: `advance(now)` fires what is due, and
 * `nextWakeup()` says when the owner should call it next, so it runs on any Clock.
 */

export interface WheelEntry {
  id: number;
  deadline: number;
}

export interface TimingWheelOptions {
  /** Resolution in ms (default 10). */
  tickMs?: number;
  /** Slots per level, a power of two (default 256). */
  slots?: number;
  /** Levels (default 4: with 10 ms ticks and 256 slots, about 497 days). */
  levels?: number;
}

export class TimingWheel {
  readonly tickMs: number;
  private readonly bits: number;
  private readonly mask: number;
  private readonly wheels: WheelEntry[][][];
  private readonly counts: number[];
  /** Ticks up to and including this one have fired. */
  private tick: number;
  private total = 0;

  constructor(now: number, options: TimingWheelOptions = {}) {
    this.tickMs = options.tickMs ?? 10;
    const slots = options.slots ?? 256;
    if (!Number.isInteger(this.tickMs) || this.tickMs < 1)
      throw new Error('tickMs must be a positive integer');
    if (slots < 2 || (slots & (slots - 1)) !== 0) throw new Error('slots must be a power of two');
    this.bits = Math.log2(slots);
    this.mask = slots - 1;
    const levels = options.levels ?? 4;
    if (!Number.isInteger(levels) || levels < 1 || this.bits * levels > 48)
      throw new Error('levels out of range');
    this.wheels = Array.from({ length: levels }, () => Array.from({ length: slots }, () => []));
    this.counts = new Array<number>(levels).fill(0);
    this.tick = Math.floor(now / this.tickMs);
  }

  get size(): number {
    return this.total;
  }

  /** The latest deadline the wheel can hold, relative to its current position. */
  get span(): number {
    return 2 ** (this.bits * this.wheels.length) * this.tickMs;
  }

  /**
   * Adds an entry. Returns false (and keeps nothing) when the deadline's tick has already fired:
   * the caller fires it at once. Throws when the deadline is beyond the wheel's span.
   */
  add(entry: WheelEntry): boolean {
    // Rounded up, so an entry never fires before its deadline.
    const tick = Math.ceil(entry.deadline / this.tickMs);
    if (tick <= this.tick) return false;
    this.place(entry, tick);
    return true;
  }

  /** Fires (returns, in deadline order) every entry due at or before `now`. */
  advance(now: number): WheelEntry[] {
    const target = Math.floor(now / this.tickMs);
    const due: WheelEntry[] = [];
    while (this.tick < target) {
      if (this.total === 0) {
        this.tick = target;
        break;
      }
      if (this.counts[0] === 0) {
        // Levels below `level` are empty: nothing fires or cascades before the next period of
        // `level` starts, so jump to the tick just before it. (Arithmetic, not `|`: ticks are far
        // beyond 32 bits.)
        let level = 1;
        while (level < this.wheels.length - 1 && this.counts[level] === 0) level++;
        const period = 2 ** (this.bits * level);
        const turnEnd = this.tick - (this.tick % period) + period - 1;
        const skipTo = Math.min(target, turnEnd);
        if (skipTo > this.tick && skipTo !== this.tick + 1) {
          this.tick = skipTo - 1;
        }
      }
      this.tick++;
      this.cascade();
      const slot = this.wheels[0]![this.tick & this.mask]!;
      if (slot.length > 0) {
        this.wheels[0]![this.tick & this.mask] = [];
        this.counts[0]! -= slot.length;
        this.total -= slot.length;
        due.push(...slot.sort((a, b) => a.deadline - b.deadline));
      }
    }
    return due;
  }

  /** When to call `advance` next (epoch ms), or undefined when the wheel is empty. */
  nextWakeup(): number | undefined {
    let earliest: number | undefined;
    for (let level = 0; level < this.wheels.length; level++) {
      if (this.counts[level] === 0) continue;
      // Level 0: the tick of the first non-empty slot. Higher levels: the start of the period
      // whose slot is non-empty, when it cascades (its entries may be due later, never earlier).
      const shift = this.bits * level;
      const period = Math.floor(this.tick / 2 ** shift);
      for (let k = 1; k <= this.mask + 1; k++) {
        if (this.wheels[level]![(period + k) & this.mask]!.length > 0) {
          const at = (period + k) * 2 ** shift * this.tickMs;
          if (earliest === undefined || at < earliest) earliest = at;
          break;
        }
      }
    }
    return earliest;
  }

  private place(entry: WheelEntry, tick: number): void {
    const delta = tick - this.tick;
    for (let level = 0; level < this.wheels.length; level++) {
      const shift = this.bits * level;
      if (delta < 2 ** (shift + this.bits)) {
        this.wheels[level]![Math.floor(tick / 2 ** shift) & this.mask]!.push(entry);
        this.counts[level]!++;
        this.total++;
        return;
      }
    }
    throw new RangeError(`deadline ${entry.deadline} is beyond the wheel's span`);
  }

  /** At the start of a level's period, its slot for that period moves down to lower levels. */
  private cascade(): void {
    for (let level = this.wheels.length - 1; level >= 1; level--) {
      const shift = this.bits * level;
      if (this.tick % 2 ** shift !== 0) continue;
      const index = Math.floor(this.tick / 2 ** shift) & this.mask;
      const slot = this.wheels[level]![index]!;
      if (slot.length === 0) continue;
      this.wheels[level]![index] = [];
      this.counts[level]! -= slot.length;
      this.total -= slot.length;
      for (const e of slot) {
        // Re-placed relative to the tick about to fire; an entry due now lands in level 0's slot.
        const tick = Math.max(Math.ceil(e.deadline / this.tickMs), this.tick);
        this.place(e, tick);
      }
    }
  }
}

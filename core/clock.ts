/**
 * Time as a dependency. Everything time-based in Junction (token expiry, workflow timers, tracker
 * retention) asks a Clock, so tests drive time with a FakeClock instead of sleeping.
 */

export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export class SystemClock implements Clock {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private nextId = 1;

  now(): number {
    return Date.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    const t = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, ms),
    );
    // Timers never keep the process alive on their own: shutdown is explicit.
    t.unref();
    this.timers.set(id, t);
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const t = this.timers.get(handle.id);
    if (t) {
      clearTimeout(t);
      this.timers.delete(handle.id);
    }
  }
}

interface FakeTimer {
  id: number;
  at: number;
  fn: () => void;
}

/** A clock that moves only when told to; `advance` fires due timers in deadline order. */
export class FakeClock implements Clock {
  private current: number;
  private timers: FakeTimer[] = [];
  private nextId = 1;

  constructor(start = Date.UTC(2026, 10, 21, 2, 5, 2)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.id !== handle.id);
  }

  /** Number of timers still pending. */
  get pending(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due on the way, in order, with the
   * clock set to each timer's deadline while it runs. Awaits a macrotask after each so async work
   * a timer started can settle.
   */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fn();
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.current = target;
  }

  /** Sets the time without firing timers (e.g. to model a process that was down). */
  set(epochMs: number): void {
    this.current = epochMs;
  }
}

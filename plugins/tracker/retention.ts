import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../../core/clock.js';
import type { TrackerStore } from './store.js';

export const DAY_MS = 24 * 60 * 60 * 1000;
export const DEFAULT_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Enforces `tracker.retentionDays`: a sweep on the app's clock deletes every document received
 * more than that many days ago. The first sweep runs at start, then one every `intervalMs`.
 */
export class RetentionSweeper {
  private timer: TimerHandle | undefined;
  private running: Promise<void> = Promise.resolve();
  private stopped = true;
  /** Documents deleted by all sweeps so far. */
  deleted = 0;

  constructor(
    private readonly store: TrackerStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly retentionDays: number,
    private readonly intervalMs: number = DEFAULT_SWEEP_INTERVAL_MS,
  ) {}

  start(): void {
    this.stopped = false;
    this.sweepSoon(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Resolves when the sweep in progress (if any) has finished. */
  idle(): Promise<void> {
    return this.running;
  }

  /** Runs one sweep now (after the one in progress). */
  sweep(): Promise<void> {
    this.running = this.running.then(async () => {
      const cutoff = this.clock.now() - this.retentionDays * DAY_MS;
      try {
        const n = await this.store.deleteBefore(cutoff);
        this.deleted += n;
        if (n > 0)
          this.logger.info({ deleted: n, before: new Date(cutoff).toISOString() }, 'tracker retention sweep');
      } catch (err) {
        this.logger.error({ err }, 'tracker retention sweep failed; retrying at the next one');
      }
    });
    return this.running;
  }

  private sweepSoon(ms: number): void {
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.sweep().then(() => {
        if (!this.stopped) this.sweepSoon(this.intervalMs);
      });
    }, ms);
  }
}

/**
 * Deadlines that fell due, run with bounded concurrency: a restart after a long stop may find a
 * million overdue timers, and firing them all at once would hold a million steps in memory. The
 * queue holds two numbers per deadline.
 */
export class DueTimers {
  private items: number[] = [];
  private head = 0;
  private running = 0;
  private paused = true;

  constructor(
    private readonly concurrency: number,
    private readonly fire: (id: number, deadline: number) => Promise<unknown>,
    private readonly onError: (err: unknown, id: number) => void,
  ) {}

  /** Deadlines queued or firing. */
  get pending(): number {
    return (this.items.length - this.head) / 2 + this.running;
  }

  push(id: number, deadline: number): void {
    this.items.push(id, deadline);
    this.drain();
  }

  resume(): void {
    this.paused = false;
    this.drain();
  }

  /** Stops firing and drops the queue (the deadlines stay in storage and reload at start). */
  pause(): void {
    this.paused = true;
    this.items = [];
    this.head = 0;
  }

  private drain(): void {
    while (!this.paused && this.running < this.concurrency && this.head < this.items.length) {
      const id = this.items[this.head]!;
      const deadline = this.items[this.head + 1]!;
      this.head += 2;
      if (this.head > 4096 && this.head * 2 > this.items.length) {
        this.items = this.items.slice(this.head);
        this.head = 0;
      }
      this.running++;
      this.fire(id, deadline)
        .catch((err: unknown) => this.onError(err, id))
        .finally(() => {
          this.running--;
          this.drain();
        });
    }
  }
}

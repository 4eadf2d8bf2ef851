import { randomBytes } from 'node:crypto';

/**
 * Tracker document ids that sort by the time they were recorded:
 * `<epoch ms, 15 digits>-<counter, 6 digits>-<tag>`. They never go backwards (a clock step back
 * reuses the last millisecond), so the documents of one batch follow those of the batch before:
 * the store keeps each batch as one page keyed by its first id. The counter orders the ids of
 * one millisecond; the tag (random per process) keeps ids unique across restarts.
 */
export class InternalIdGenerator {
  private counter = 0;
  private last = 0;
  private readonly tag = randomBytes(2).toString('hex');

  next(epochMs: number): string {
    this.last = Math.max(this.last, Math.floor(epochMs));
    this.counter = (this.counter + 1) % 1_000_000;
    return `${timeKey(this.last)}-${String(this.counter).padStart(6, '0')}-${this.tag}`;
  }
}

/** The time part of an id: every id of that millisecond starts with it and sorts after it. */
export function timeKey(epochMs: number): string {
  return String(Math.max(0, Math.floor(epochMs))).padStart(15, '0');
}

/** The epoch ms an id was recorded at. */
export function timeOfId(internalId: string): number {
  return Number(internalId.slice(0, 15));
}

import { randomBytes } from 'node:crypto';

/**
 * Tracker document ids that sort by time: `<epoch ms, 15 digits>-<counter, 6 digits>-<tag>`.
 * Because they sort by time, the id is the key of the time index. The counter orders documents
 * received in the same millisecond; the tag (random per process) keeps ids unique when a
 * restarted server's clock gives a millisecond and counter an earlier process already used.
 */
export class InternalIdGenerator {
  private counter = 0;
  private readonly tag = randomBytes(2).toString('hex');

  next(epochMs: number): string {
    this.counter = (this.counter + 1) % 1_000_000;
    return `${timeKey(epochMs)}-${String(this.counter).padStart(6, '0')}-${this.tag}`;
  }
}

/** The time part of an id: every id of that millisecond starts with it and sorts after it. */
export function timeKey(epochMs: number): string {
  return String(Math.max(0, Math.floor(epochMs))).padStart(15, '0');
}

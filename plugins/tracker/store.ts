import type { BatchOp, Store } from '../../core/storage/types.js';
import { timeKey, timeOfId } from './ids.js';
import type { TrackerDocument } from './types.js';

/** A query of `GET /tracker-api/documents`; times are epoch ms of `timeReceived`, both inclusive. */
export interface DocumentQuery {
  documentType?: string;
  userName?: string;
  from?: number;
  to?: number;
  limit: number;
  page: number;
}

/**
 * How much later than it was received a call may be recorded and still be found by a `to`
 * filter: pages recorded later than `to` plus this are not read.
 */
export const MAX_CALL_DURATION_MS = 60 * 60 * 1000;
const SWEEP_CHUNK = 20;
// Separates the document type from the page key in the type index; refused in document types.
const SEP = '\u0000';

/** One batch of documents, in id order. */
interface Page {
  docs: TrackerDocument[];
}

/**
 * The tracker's documents in LevelDB. Each batch the recorder writes is one page: `pages` holds
 * it under the internalId of its first document. Ids sort by the time they were recorded and a
 * batch's ids all follow the previous batch's, so pages never overlap: the page keys are the
 * time index, and a document is found in the last page whose key is not after its id.
 * `by-type` holds `<documentType>\0<page key>` → the positions in that page of the documents of
 * that type: the document-type index. A page and its index entries are one atomic batch, a
 * handful of LevelDB operations for a whole batch of documents, which keeps tracking cheap.
 */
export class TrackerStore {
  private readonly pages: Store;
  private readonly byType: Store;

  constructor(root: Store) {
    this.pages = root.store('pages');
    this.byType = root.store('by-type');
  }

  /**
   * Writes one batch as a page. `docs` are one batch of the recorder: a run of consecutive ids
   * that no other batch interleaves. Not synced: a tracker document logs a call already answered; it
   * survives a process crash (LevelDB's log) though not a power loss, which keeps the fsync off
   * the alias path.
   */
  async write(docs: TrackerDocument[]): Promise<void> {
    if (docs.length === 0) return;
    const sorted = [...docs].sort((a, b) => (a.internalId < b.internalId ? -1 : 1));
    const key = sorted[0]!.internalId;
    const positions = new Map<string, number[]>();
    sorted.forEach((doc, i) => {
      const list = positions.get(doc.documentType);
      if (list) list.push(i);
      else positions.set(doc.documentType, [i]);
    });
    const ops: BatchOp[] = [{ type: 'put', key, value: { docs: sorted } satisfies Page }];
    for (const [type, list] of positions) {
      ops.push({ type: 'put', key: type + SEP + key, value: list, store: this.byType });
    }
    await this.pages.batch(ops, { durable: false });
  }

  async get(internalId: string): Promise<TrackerDocument | undefined> {
    for await (const [, page] of this.pages.entries<Page>({ lte: internalId, reverse: true, limit: 1 })) {
      return find(page.docs, internalId);
    }
    return undefined;
  }

  /** Newest (last recorded) first; `page` pages of `limit` documents. */
  async query(q: DocumentQuery): Promise<TrackerDocument[]> {
    const skip = q.page * q.limit;
    const out: TrackerDocument[] = [];
    let seen = 0;
    for await (const doc of this.newestFirst(q)) {
      if (q.userName !== undefined && doc.userName !== q.userName) continue;
      const received = Date.parse(doc.timeReceived);
      if (q.to !== undefined && received > q.to) continue;
      if (q.from !== undefined && received < q.from) continue;
      if (seen++ < skip) continue;
      out.push(doc);
      if (out.length >= q.limit) break;
    }
    return out;
  }

  /**
   * Deletes every page whose documents were all recorded before `cutoffMs` (and so received
   * before it); resolves with how many documents. A page that straddles the cutoff waits for a
   * later sweep.
   */
  async deleteBefore(cutoffMs: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const ops: BatchOp[] = [];
      let done = false;
      let count = 0;
      for await (const [key, page] of this.pages.entries<Page>({ limit: SWEEP_CHUNK })) {
        const newest = page.docs[page.docs.length - 1];
        if (newest && timeOfId(newest.internalId) >= cutoffMs) {
          done = true;
          break;
        }
        ops.push({ type: 'del', key });
        for (const type of new Set(page.docs.map((d) => d.documentType))) {
          ops.push({ type: 'del', key: type + SEP + key, store: this.byType });
        }
        count += page.docs.length;
      }
      if (ops.length > 0) {
        await this.pages.batch(ops, { durable: false });
        deleted += count;
      }
      if (done || ops.length === 0) return deleted;
    }
  }

  /** Candidate documents, newest first, from the pages that can hold the query's time range. */
  private async *newestFirst(q: DocumentQuery): AsyncGenerator<TrackerDocument> {
    // A document is recorded after it is received: pages recorded before `from` hold nothing
    // received after it, and pages recorded long after `to` hold nothing received before it.
    const lt = q.to === undefined ? undefined : timeKey(q.to + MAX_CALL_DURATION_MS + 1);
    const before = (page: Page) =>
      q.from !== undefined && timeOfId(page.docs[page.docs.length - 1]!.internalId) < q.from;
    if (q.documentType === undefined) {
      for await (const [, page] of this.pages.entries<Page>({ reverse: true, ...(lt ? { lt } : {}) })) {
        if (before(page)) return;
        for (let i = page.docs.length - 1; i >= 0; i--) yield page.docs[i]!;
      }
      return;
    }
    const prefix = q.documentType + SEP;
    const range = {
      reverse: true,
      gt: prefix,
      lt: lt === undefined ? q.documentType + '\u0001' : prefix + lt,
    };
    for await (const [key, positions] of this.byType.entries<number[]>(range)) {
      const page = await this.pages.get<Page>(key.slice(prefix.length));
      // An index entry without its page cannot happen (same batch), but never yield a hole.
      if (!page) continue;
      if (before(page)) return;
      for (let i = positions.length - 1; i >= 0; i--) {
        const doc = page.docs[positions[i]!];
        if (doc) yield doc;
      }
    }
  }
}

function find(docs: TrackerDocument[], internalId: string): TrackerDocument | undefined {
  let lo = 0;
  let hi = docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const id = docs[mid]!.internalId;
    if (id === internalId) return docs[mid];
    if (id < internalId) lo = mid + 1;
    else hi = mid - 1;
  }
  return undefined;
}

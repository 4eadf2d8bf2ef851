import type { BatchOp, Store } from '../../core/storage/types.js';
import type { TrackerDocument } from './types.js';
import { timeKey } from './ids.js';

/** A query of `GET /tracker-api/documents`; times are epoch ms, both ends inclusive. */
export interface DocumentQuery {
  documentType?: string;
  userName?: string;
  from?: number;
  to?: number;
  limit: number;
  page: number;
}

const FETCH_CHUNK = 100;
const SWEEP_CHUNK = 500;
// Separates the document type from the id in the type index; refused in document types.
const SEP = '\u0000';

/**
 * The tracker's documents in LevelDB. `documents` holds each document under its internalId, which
 * sorts by time, so it is also the time index; `by-type` holds `<documentType>\0<internalId>`
 * keys, the document-type index. Both are written in one atomic batch.
 */
export class TrackerStore {
  private readonly documents: Store;
  private readonly byType: Store;

  constructor(root: Store) {
    this.documents = root.store('documents');
    this.byType = root.store('by-type');
  }

  /**
   * Writes documents and their index entries atomically. Not synced: a tracker document is a
   * log of a call already answered, and it survives a process crash (LevelDB's log) though not
   * a power loss; this keeps the fsync off the alias path.
   */
  async write(docs: TrackerDocument[]): Promise<void> {
    const ops: BatchOp[] = [];
    for (const doc of docs) {
      ops.push({ type: 'put', key: doc.internalId, value: doc });
      ops.push({
        type: 'put',
        key: typeKey(doc.documentType, doc.internalId),
        value: '',
        store: this.byType,
      });
    }
    await this.documents.batch(ops, { durable: false });
  }

  get(internalId: string): Promise<TrackerDocument | undefined> {
    return this.documents.get<TrackerDocument>(internalId);
  }

  /** Newest first; `page` pages of `limit` documents. */
  async query(q: DocumentQuery): Promise<TrackerDocument[]> {
    const skip = q.page * q.limit;
    const out: TrackerDocument[] = [];
    let seen = 0;
    for await (const doc of this.newestFirst(q)) {
      if (q.userName !== undefined && doc.userName !== q.userName) continue;
      if (seen++ < skip) continue;
      out.push(doc);
      if (out.length >= q.limit) break;
    }
    return out;
  }

  /** Deletes every document received before `cutoffMs`; resolves with how many. */
  async deleteBefore(cutoffMs: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const ops: BatchOp[] = [];
      for await (const [id, doc] of this.documents.entries<TrackerDocument>({
        lt: timeKey(cutoffMs),
        limit: SWEEP_CHUNK,
      })) {
        ops.push({ type: 'del', key: id });
        ops.push({ type: 'del', key: typeKey(doc.documentType, id), store: this.byType });
      }
      if (ops.length === 0) return deleted;
      await this.documents.batch(ops, { durable: false });
      deleted += ops.length / 2;
    }
  }

  private async *newestFirst(q: DocumentQuery): AsyncGenerator<TrackerDocument> {
    const gte = q.from === undefined ? undefined : timeKey(q.from);
    // `to` is inclusive: every id of that millisecond sorts below the next millisecond's prefix.
    const lt = q.to === undefined ? undefined : timeKey(q.to + 1);
    if (q.documentType === undefined) {
      const range = {
        reverse: true,
        ...(gte === undefined ? {} : { gte }),
        ...(lt === undefined ? {} : { lt }),
      };
      for await (const [, doc] of this.documents.entries<TrackerDocument>(range)) yield doc;
      return;
    }
    const prefix = q.documentType + SEP;
    const range = {
      reverse: true,
      gte: prefix + (gte ?? ''),
      // U+0001 sorts after every id that follows the separator.
      lt: lt === undefined ? q.documentType + '\u0001' : prefix + lt,
    };
    let ids: string[] = [];
    for await (const key of this.byType.keys(range)) {
      ids.push(key.slice(prefix.length));
      if (ids.length === FETCH_CHUNK) {
        yield* this.fetch(ids);
        ids = [];
      }
    }
    yield* this.fetch(ids);
  }

  private async *fetch(ids: string[]): AsyncGenerator<TrackerDocument> {
    if (ids.length === 0) return;
    for (const doc of await this.documents.getMany<TrackerDocument>(ids)) {
      // An index entry without its document cannot happen (same batch), but never yield a hole.
      if (doc) yield doc;
    }
  }
}

function typeKey(documentType: string, internalId: string): string {
  return documentType + SEP + internalId;
}

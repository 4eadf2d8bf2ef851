/**
 * What the tracker plugin offers other plugins, registered in the container under
 * `TRACKER_RECORDER`. Callers (the alias plugin) resolve it in `start()`: the tracker is listed
 * after them in the default configuration.
 */

export const TRACKER_RECORDER = 'tracker.recorder';

/** A tracker document (CONTRACT §5). */
export interface TrackerDocument {
  internalId: string;
  externalId: string;
  documentType: string;
  senderId: string;
  receiverId: string;
  userName: string;
  /** ISO-8601. */
  timeReceived: string;
  state: 'OK' | 'ERROR';
  durationMs: number;
}

export interface TrackerRecorder {
  /**
   * Queues a document; returns at once (the write is batched off the request path, and every
   * queued document is written before a graceful shutdown completes). `internalId` is assigned
   * by the tracker and returned.
   */
  record(doc: Omit<TrackerDocument, 'internalId'>): string;
}

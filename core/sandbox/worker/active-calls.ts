import type { HostCaller } from '../protocol.js';

/**
 * Calls running now in this worker, by the id their `ctx` passes with each host call. A host call
 * whose id is not here comes from code still running after its call ended.
 */
export const activeCalls = new Map<number, HostCaller>();

let nextCallId = 1;

export function newCallId(): number {
  return nextCallId++;
}

/** Calls of a batch still running when the batch's isolate entry returned, by call id. */
export const lateAnswers = new Map<number, (result: string) => void>();

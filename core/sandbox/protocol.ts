/**
 * What crosses between the main thread and a sandbox worker. Inputs, outputs and host-call
 * payloads cross as JSON strings: a string is cheap to post between threads and to copy into an
 * isolate, and parsing happens once, where the value is used.
 */
import type { WireError } from '../errors.js';
import type { PackageCode } from './types.js';
import type { MessagePort } from 'node:worker_threads';
import type { UserRef } from '../services/types.js';

export interface CallJob {
  kind: 'call';
  id: number;
  key: string;
  module: string;
  fn: string;
  /** JSON text of the input. */
  input: string;
  user: UserRef;
  depth: number;
}

export interface EvaluateJob {
  kind: 'evaluate';
  id: number;
  key: string;
  expressions: string[];
  /** JSON text of the scope object. */
  scope: string;
}

export interface InspectJob {
  kind: 'inspect';
  id: number;
  code: PackageCode;
}

export type Job = CallJob | EvaluateJob | InspectJob;

/** One piscina task: every job queued since the last dispatch (micro-batching). */
export interface BatchTask {
  jobs: Job[];
}

/**
 * How a job ended. `value` is JSON text (a call's output, an evaluation's result array, an
 * inspection's export list). `service` marks an error thrown by service code (rebuilt as
 * ServiceError); other errors carry a sandbox error code (rebuilt by code).
 */
export type Outcome =
  | { id: number; ok: true; value: string }
  | { id: number; ok: false; service: boolean; error: WireError; stack?: string };

export interface BatchResult {
  outcomes: Outcome[];
}

/** Settings a worker reads from piscina's `workerData`. */
export interface WorkerSettings {
  timeoutMs: number;
  memoryLimitMb: number;
}

/** Which package and user a host call comes from. */
export interface HostCaller {
  package: string;
  user: UserRef;
  depth: number;
}

/** Worker → main thread, over the worker's own MessagePort. */
export type WorkerMessage =
  | { type: 'code'; rid: number; key: string }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string; caller: HostCaller }
  | { type: 'host'; rid: number; op: 'invoke' | 'fetch' | 'call'; payload: string; caller: HostCaller }
  | { type: 'outcomes'; outcomes: Outcome[] };

/** Main thread → worker. `value` of a host reply is JSON text; of a code reply a PackageCode. */
export type MainMessage =
  | { type: 'reply'; rid: number; ok: true; value: unknown }
  | { type: 'reply'; rid: number; ok: false; error: WireError }
  | { type: 'forget'; key: string };

/** The message a worker posts on piscina's parentPort once, handing over its port. */
export interface PortAnnouncement {
  junctionSandboxPort: MessagePort;
}

/** `ctx.http.fetch` as it crosses to the main thread. */
export interface FetchRequest {
  url: string;
  init?: { method?: string; headers?: Record<string, string>; body?: unknown };
}

/** The response shape a service sees (plus `ok`, `text()`, `json()` added inside the isolate). */
export interface FetchResponse {
  status: number;
  statusText: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

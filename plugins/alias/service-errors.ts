import { JunctionError } from '../../core/errors.js';
import { AliasServiceError, AliasServiceFailedError } from './errors.js';

/** A code a service may set on its error and see answered as is. */
const SERVICE_CODE = /^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/;
const MAX_MESSAGE = 1000;

/**
 * The answer to an alias call whose service failed (CONTRACT §3). The sandbox rebuilds a
 * service's error on the host with its `message`, `code` and numeric `status`; Junction's own
 * errors (time-out, memory, unknown service) arrive as JunctionErrors and keep their status.
 * A stack never reaches the client: the answer is built from the message and code only.
 */
export function answerForServiceError(err: unknown, service: string): JunctionError {
  if (err instanceof JunctionError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    message?: unknown;
    code?: unknown;
    status?: unknown;
  };
  const message = typeof e.message === 'string' && e.message !== '' ? clip(e.message) : undefined;
  const status = e.status;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) {
    const code = typeof e.code === 'string' && SERVICE_CODE.test(e.code) ? e.code : AliasServiceError.code;
    return new JunctionError(code, status, message ?? `The service ${service} failed`);
  }
  return new AliasServiceFailedError(
    message === undefined ? `The service ${service} failed` : `The service ${service} failed: ${message}`,
  );
}

function clip(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

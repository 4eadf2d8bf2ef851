import { JunctionError } from '../../core/errors.js';
import { AliasServiceFailedError } from './errors.js';

/** A code a service may set on its error and see answered as is. */
const SERVICE_CODE = /^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/;
const MAX_MESSAGE = 1000;

/**
 * The answer to an alias call whose service failed (CONTRACT §3). The sandbox rebuilds an error
 * thrown by service code as a JunctionError with the service's message, its `code` (else
 * JCT_SERVICE_ERROR) and its numeric `status` (400–599, else 500); Junction's own errors
 * (time-out, memory, unknown service) are JunctionErrors too: all answered as they are. Anything
 * else (an error that did not come through the sandbox) is mapped the same way here. The answer
 * is built from the message and code only, never the stack.
 */
export function answerForServiceError(err: unknown, service: string): JunctionError {
  if (err instanceof JunctionError) return err;
  const e = (typeof err === 'object' && err !== null ? err : {}) as {
    message?: unknown;
    code?: unknown;
    status?: unknown;
  };
  const message =
    typeof e.message === 'string' && e.message !== ''
      ? `The service ${service} failed: ${clip(e.message)}`
      : `The service ${service} failed`;
  const status = e.status;
  if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) {
    const code =
      typeof e.code === 'string' && SERVICE_CODE.test(e.code) ? e.code : AliasServiceFailedError.code;
    return new JunctionError(code, status, message);
  }
  return new AliasServiceFailedError(message);
}

function clip(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message;
}

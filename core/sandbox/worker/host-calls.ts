import type ivmModule from 'isolated-vm';
import { SandboxCrashedError, wireErrorWithStatus } from '../errors.js';
import type { HostLink } from './host-link.js';
import { activeCalls } from './job-runner.js';

const ENDED = `0${JSON.stringify(
  wireErrorWithStatus(
    new SandboxCrashedError(
      'ctx was used after its service call had ended; host functions only work during a call',
    ),
  ),
)}`;

/**
 * The one host function an isolate can reach: `(callId, op, payloadJson)`, held by the in-isolate
 * runtime (isolate/runtime.ts) and never visible to service code. It forwards to the main thread
 * and answers `1` + JSON value or `0` + JSON WireError, which the runtime turns into a return value
 * or a catchable exception. Only calls still running may use it.
 */
export function createHostReference(link: HostLink, ivm: typeof ivmModule): ivmModule.Reference {
  return new ivm.Reference((callId: number, op: string, payload: string): Promise<string> | undefined => {
    const caller = activeCalls.get(callId);
    if (op === 'log') {
      // Fire and forget (applyIgnored); a line logged after the call ended is dropped.
      if (caller !== undefined) {
        const { level, message } = JSON.parse(payload) as {
          level: 'info' | 'warn' | 'error';
          message: string;
        };
        link.post({ type: 'log', level, message, caller });
      }
      return undefined;
    }
    if (caller === undefined) return Promise.resolve(ENDED);
    if (op !== 'invoke' && op !== 'fetch' && op !== 'call') return Promise.resolve(ENDED);
    return link.request({ type: 'host', op, payload, caller }).then(
      (value) => `1${value as string}`,
      (error: unknown) => `0${JSON.stringify(error)}`,
    );
  });
}

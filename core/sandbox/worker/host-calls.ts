import type ivmModule from 'isolated-vm';
import { SandboxCrashedError, wireErrorWithStatus } from '../errors.js';
import { activeCalls, lateAnswers } from './active-calls.js';
import type { HostLink } from './host-link.js';

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
 *
 * An answer that reaches the isolate after its call ended wakes code that no watchdog covers (a
 * detached `.then`); `onLateAnswer` lets the isolate's owner check that such code stops.
 */
export function createHostReference(
  link: HostLink,
  ivm: typeof ivmModule,
  onLateAnswer: () => void,
): ivmModule.Reference {
  return new ivm.Reference((callId: number, op: string, payload: string): Promise<string> | undefined => {
    if (op === 'done') {
      // A call of a batch that ended after the batch's isolate entry returned (applyIgnored).
      lateAnswers.get(callId)?.(payload);
      return undefined;
    }
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
    if (caller === undefined || (op !== 'invoke' && op !== 'fetch' && op !== 'call')) {
      setImmediate(onLateAnswer);
      return Promise.resolve(ENDED);
    }
    return link.request({ type: 'host', op, payload, caller }).then(
      (value) => answer(`1${value as string}`),
      (error: unknown) => answer(`0${JSON.stringify(error)}`),
    );

    function answer(text: string): string {
      if (!activeCalls.has(callId)) setImmediate(onLateAnswer);
      return text;
    }
  });
}

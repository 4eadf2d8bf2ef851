import type { MessagePort } from 'node:worker_threads';
import type { WireError } from '../../errors.js';
import type { MainMessage, WorkerMessage } from '../protocol.js';

type Request = Extract<WorkerMessage, { rid: number }>;
type Reply = Extract<MainMessage, { type: 'reply' }>;

/**
 * The worker's end of its own channel to the main thread. Piscina gives a worker no port of its
 * own for anything but tasks, so each worker creates a MessageChannel at start and hands one end
 * to the main thread (see worker/index.ts); requests and replies are matched by `rid`.
 */
export class HostLink {
  private nextRid = 1;
  private readonly waiting = new Map<number, (reply: Reply) => void>();

  constructor(
    private readonly port: MessagePort,
    onForget: (key: string) => void,
  ) {
    port.on('message', (message: MainMessage) => {
      if (message.type === 'forget') {
        onForget(message.key);
        return;
      }
      const resolve = this.waiting.get(message.rid);
      this.waiting.delete(message.rid);
      resolve?.(message);
    });
  }

  /** Sends a request and resolves with the value of the reply; rejects with its WireError. */
  request(message: DistributiveOmit<Request, 'rid'>): Promise<unknown> {
    const rid = this.nextRid++;
    return new Promise((resolve, reject: (error: WireError) => void) => {
      this.waiting.set(rid, (reply) => (reply.ok ? resolve(reply.value) : reject(reply.error)));
      this.port.postMessage({ ...message, rid });
    });
  }

  post(message: Exclude<WorkerMessage, { rid: number }>): void {
    this.port.postMessage(message);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

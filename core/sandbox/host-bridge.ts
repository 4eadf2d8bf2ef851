import type { MessagePort } from 'node:worker_threads';
import type { Logger } from 'pino';
import { InvokeDepthError, wireErrorWithStatus } from './errors.js';
import { httpFetch, type FetchLimits } from './http-fetch.js';
import type { FetchRequest, HostCaller, MainMessage, Outcome, WorkerMessage } from './protocol.js';
import type { PackageCode, SandboxHost } from './types.js';

/**
 * The main thread's side of every worker's port: answers code requests and host calls (`ctx.log`,
 * `ctx.invoke`, `ctx.http.fetch`, `ctx.flux.sendEvent`) and passes early job outcomes on. A port
 * closes when its worker dies; replies still in flight to it are simply dropped.
 */
export class HostBridge {
  private readonly ports = new Set<MessagePort>();

  constructor(
    private readonly host: SandboxHost,
    private readonly codeOf: (key: string) => PackageCode | undefined,
    private readonly limits: FetchLimits & { maxInvokeDepth: number },
    private readonly logger: Logger,
    private readonly onOutcomes: (outcomes: Outcome[]) => void,
  ) {}

  attach(port: MessagePort): void {
    this.ports.add(port);
    port.on('message', (message: WorkerMessage) => this.handle(port, message));
    port.on('close', () => this.ports.delete(port));
    // The pool, not an open port, decides how long the process lives.
    port.unref();
  }

  broadcast(message: MainMessage): void {
    for (const port of this.ports) port.postMessage(message);
  }

  private handle(port: MessagePort, message: WorkerMessage): void {
    switch (message.type) {
      case 'outcomes':
        this.onOutcomes(message.outcomes);
        return;
      case 'log':
        try {
          this.host.log(message.level, message.message, {
            package: message.caller.package,
            user: message.caller.user,
          });
        } catch (err) {
          this.logger.error({ err }, 'sandbox host log failed');
        }
        return;
      case 'code':
        this.reply(port, message.rid, () => this.codeOf(message.key));
        return;
      case 'host':
        this.reply(port, message.rid, async () => {
          const value = await this.perform(message.op, message.payload, message.caller);
          return JSON.stringify(value === undefined ? null : value);
        });
        return;
    }
  }

  private reply(port: MessagePort, rid: number, produce: () => unknown): void {
    Promise.resolve()
      .then(produce)
      .then(
        (value) => port.postMessage({ type: 'reply', rid, ok: true, value } satisfies MainMessage),
        (err: unknown) =>
          port.postMessage({
            type: 'reply',
            rid,
            ok: false,
            error: wireErrorWithStatus(err),
          } satisfies MainMessage),
      )
      .catch((err: unknown) => this.logger.error({ err }, 'sandbox host reply failed'));
  }

  private perform(op: 'invoke' | 'fetch' | 'call', payload: string, caller: HostCaller): Promise<unknown> {
    const who = { package: caller.package, user: caller.user };
    switch (op) {
      case 'invoke': {
        const { name, input } = JSON.parse(payload) as { name: string; input: unknown };
        if (caller.depth + 1 > this.limits.maxInvokeDepth) {
          throw new InvokeDepthError(
            `ctx.invoke('${name}') refused: calls may nest at most ${this.limits.maxInvokeDepth} deep (sandbox.maxInvokeDepth)`,
          );
        }
        return this.host.invoke(name, input, { ...who, depth: caller.depth + 1 });
      }
      case 'fetch':
        return httpFetch(JSON.parse(payload) as FetchRequest, this.limits);
      case 'call': {
        const { name, args } = JSON.parse(payload) as { name: string; args: unknown };
        return this.host.call(name, args, who);
      }
    }
  }
}

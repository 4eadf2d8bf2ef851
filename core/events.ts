import { EventEmitter } from 'node:events';

/** Events the runtime and the built-in plugins publish on `app.events`. */
export interface JunctionEventMap {
  'package.deployed': { name: string; version: string; deployId: number };
  'package.failed': { name: string; errors: string[] };
  'package.undeployed': { name: string };
  'flux.context.started': { contextId: number; fluxName: string; packageName: string; state: string };
  'flux.context.transitioned': { contextId: number; fluxName: string; from: string; to: string };
  'flux.context.ended': { contextId: number; fluxName: string; status: string };
}

/** A typed event emitter; listeners run synchronously and must not throw. */
export class JunctionEvents {
  private readonly emitter = new EventEmitter();

  on<K extends keyof JunctionEventMap>(
    event: K,
    listener: (payload: JunctionEventMap[K]) => void,
  ): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }

  emit<K extends keyof JunctionEventMap>(event: K, payload: JunctionEventMap[K]): void {
    if (this.emitter.listenerCount(event) > 0) this.emitter.emit(event, payload);
  }
}

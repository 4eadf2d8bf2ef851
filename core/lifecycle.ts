import { LifecycleError } from './errors.js';

/**
 * The app's lifecycle, one transition at a time:
 *
 *   INITIALIZED → STARTING → RUNNING → STOPPING → STOPPED
 *                     └──────────→ FAILED ←───────┘
 */
export type LifecycleState = 'INITIALIZED' | 'STARTING' | 'RUNNING' | 'STOPPING' | 'STOPPED' | 'FAILED';

const allowed: Record<LifecycleState, LifecycleState[]> = {
  INITIALIZED: ['STARTING', 'STOPPED'],
  STARTING: ['RUNNING', 'FAILED'],
  RUNNING: ['STOPPING'],
  STOPPING: ['STOPPED', 'FAILED'],
  STOPPED: [],
  FAILED: ['STOPPING', 'STOPPED'],
};

export class Lifecycle {
  private current: LifecycleState = 'INITIALIZED';

  get state(): LifecycleState {
    return this.current;
  }

  to(next: LifecycleState): void {
    if (!allowed[this.current].includes(next)) {
      throw new LifecycleError(`cannot go from ${this.current} to ${next}`);
    }
    this.current = next;
  }
}

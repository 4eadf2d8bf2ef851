/**
 * The sandbox: runs package code in isolated-vm isolates inside a piscina pool of worker threads.
 * See docs/sandbox.md.
 */
import { SandboxPool } from './pool.js';
import type { Sandbox, SandboxOptions } from './types.js';

export function createSandbox(options: SandboxOptions): Sandbox {
  return new SandboxPool(options);
}

export { SandboxPool } from './pool.js';
export * from './errors.js';
export type * from './types.js';

import { ConfigError } from '../errors.js';
import { SandboxInputError } from './errors.js';
import type { SandboxOptions } from './types.js';

/** JSON text of a value crossing into the sandbox (`undefined` → `null`); JCT_SANDBOX_INPUT otherwise. */
export function toJson(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value === undefined ? null : value);
  } catch (err) {
    throw new SandboxInputError(`${what} is not JSON-serializable: ${(err as Error).message}`);
  }
  if (text === undefined) throw new SandboxInputError(`${what} is not JSON-serializable`);
  return text;
}

/** Checks the options up front, naming the config key of a bad one (JCT_CONFIG_INVALID). */
export function validateOptions(options: SandboxOptions): void {
  const integer = (name: keyof SandboxOptions, min: number): void => {
    const value = options[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      throw new ConfigError(`sandbox.${name} must be an integer of at least ${min} (got ${String(value)})`);
    }
  };
  integer('threads', 1);
  integer('memoryLimitMb', 8);
  integer('timeoutMs', 1);
  integer('maxInvokeDepth', 1);
  integer('httpTimeoutMs', 1);
  integer('httpMaxBytes', 1);
  if (options.maxBatchSize !== undefined) integer('maxBatchSize', 1);
  if (options.host === undefined || options.host === null) throw new ConfigError('the sandbox needs a host');
}

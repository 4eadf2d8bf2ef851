import { defineError, JunctionError, type WireError } from '../errors.js';

/** Errors of the sandbox (docs/errors.md, "Services and sandbox"; docs/sandbox.md). */
export const PackageInvalidError = defineError('JCT_PACKAGE_INVALID', 400, 'The package code is invalid');
export const SandboxTimeoutError = defineError(
  'JCT_SANDBOX_TIMEOUT',
  504,
  'The service ran past its time limit',
);
export const SandboxMemoryError = defineError('JCT_SANDBOX_MEMORY', 500, 'The service ran out of memory');
export const SandboxCrashedError = defineError(
  'JCT_SANDBOX_CRASHED',
  500,
  'The sandbox failed during the call',
);
export const SandboxClosedError = defineError('JCT_SANDBOX_CLOSED', 503, 'The sandbox is shut down');
export const InvokeDepthError = defineError('JCT_SANDBOX_INVOKE_DEPTH', 500, 'ctx.invoke nested too deeply');
export const SandboxHttpError = defineError('JCT_SANDBOX_HTTP', 502, 'ctx.http.fetch failed');
export const ExpressionError = defineError('JCT_SANDBOX_EXPRESSION', 500, 'An expression failed');
export const VersionNotDeployedError = defineError(
  'JCT_SANDBOX_NOT_DEPLOYED',
  404,
  'The package version is not deployed',
);
export const NoSuchFunctionError = defineError(
  'JCT_SANDBOX_NO_FUNCTION',
  404,
  'The package has no such module or exported function',
);
export const SandboxInputError = defineError('JCT_SANDBOX_INPUT', 400, 'The input is not JSON-serializable');

const ServiceErrorBase = defineError('JCT_SERVICE_ERROR', 500, 'The service failed');

/**
 * An error thrown by service code, rebuilt on the host. Its HTTP status is the numeric `status`
 * the code set (400–599; anything else is 500) and its code the string `code` the code set
 * (else JCT_SERVICE_ERROR), so an alias answers `{message, code}` with that status.
 */
export class ServiceError extends ServiceErrorBase {
  /** The `name` of the thrown error inside the sandbox (e.g. `TypeError`). */
  readonly serviceErrorName: string;

  constructor(message: string, details: { name?: string; code?: string; status?: number } = {}) {
    super(message);
    this.serviceErrorName = details.name ?? 'Error';
    // `code` and `statusCode` are readonly on JunctionError; a service error is the one case where
    // they come from outside, so they are overridden here, once, at construction.
    const self = this as unknown as { code: string; statusCode: number };
    if (typeof details.code === 'string' && details.code.length > 0) self.code = details.code;
    const status = details.status;
    if (typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599) {
      self.statusCode = status;
    }
  }
}

/** A JunctionError's wire form keeps its status (toWireError leaves it out). */
export function wireErrorWithStatus(err: unknown): WireError {
  if (err instanceof JunctionError)
    return { name: err.name, code: err.code, message: err.message, status: err.statusCode };
  if (err instanceof Error) {
    const e = err as Error & { code?: unknown; status?: unknown };
    return {
      name: err.name,
      message: err.message,
      ...(typeof e.code === 'string' ? { code: e.code } : {}),
      ...(typeof e.status === 'number' ? { status: e.status } : {}),
    };
  }
  return { name: 'Error', message: String(err) };
}

/**
 * The one error model of Junction. Every error a client can see is a JunctionError with a stable
 * code (never changed, never reused; see docs/errors.md), an HTTP status and a message. Plugins
 * define theirs with `defineError` in their own `errors.ts`; the registry below lets an error that
 * crossed a worker-thread or isolate boundary as `{name, code, message}` be rebuilt on the host.
 */

export interface ErrorBody {
  message: string;
  code: string;
}

export interface JunctionErrorOptions {
  cause?: unknown;
  /** Extra response headers, e.g. `Allow` for a 405 or `WWW-Authenticate` for a 401. */
  headers?: Record<string, string>;
}

export class JunctionError extends Error {
  readonly code: string;
  readonly statusCode: number;
  readonly headers: Record<string, string> | undefined;

  constructor(code: string, statusCode: number, message: string, options: JunctionErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'JunctionError';
    this.code = code;
    this.statusCode = statusCode;
    this.headers = options.headers;
  }

  toJSON(): ErrorBody {
    return { message: this.message, code: this.code };
  }
}

export interface JunctionErrorClass {
  new (message?: string, options?: JunctionErrorOptions): JunctionError;
  readonly code: string;
  readonly statusCode: number;
}

const registry = new Map<string, JunctionErrorClass>();

/** Defines an error class with a stable code; a code may be defined only once. */
export function defineError(code: string, statusCode: number, defaultMessage: string): JunctionErrorClass {
  if (!/^JCT_[A-Z0-9_]+$/.test(code)) throw new Error(`error code ${code} must match JCT_[A-Z0-9_]+`);
  if (registry.has(code)) throw new Error(`error code ${code} is defined twice`);
  const cls = class extends JunctionError {
    static readonly code = code;
    static readonly statusCode = statusCode;
    constructor(message: string = defaultMessage, options?: JunctionErrorOptions) {
      super(code, statusCode, message, options);
    }
  };
  registry.set(code, cls);
  return cls;
}

/** Every code defined so far (the errors test compares this with docs/errors.md). */
export function definedErrorCodes(): string[] {
  return [...registry.keys()].sort();
}

/** The form in which an error crosses a thread or isolate boundary. */
export interface WireError {
  name: string;
  code?: string;
  message: string;
  status?: number;
}

export function toWireError(err: unknown): WireError {
  if (err instanceof JunctionError) return { name: err.name, code: err.code, message: err.message };
  if (err instanceof Error) {
    const status = (err as { status?: unknown }).status;
    const code = (err as { code?: unknown }).code;
    return {
      name: err.name,
      message: err.message,
      ...(typeof code === 'string' ? { code } : {}),
      ...(typeof status === 'number' ? { status } : {}),
    };
  }
  return { name: 'Error', message: String(err) };
}

/** Rebuilds an error that crossed a boundary: a known code becomes its JunctionError class. */
export function fromWireError(wire: WireError): Error {
  const cls = wire.code === undefined ? undefined : registry.get(wire.code);
  if (cls) return new cls(wire.message);
  const err = new Error(wire.message) as Error & { code?: string; status?: number };
  err.name = wire.name;
  if (wire.code !== undefined) err.code = wire.code;
  if (wire.status !== undefined) err.status = wire.status;
  return err;
}

// Core errors. Plugins define their own beside their code.
export const ConfigError = defineError('JCT_CONFIG_INVALID', 500, 'The configuration is invalid');
export const ValidationError = defineError('JCT_VALIDATION', 400, 'The request is invalid');
export const BadJsonError = defineError('JCT_BAD_JSON', 400, 'The request body is not valid JSON');
export const BodyTooLargeError = defineError('JCT_BODY_TOO_LARGE', 413, 'The request body is too large');
export const UnsupportedMediaTypeError = defineError(
  'JCT_UNSUPPORTED_MEDIA_TYPE',
  415,
  'The request content type is not supported',
);
export const NotFoundError = defineError('JCT_NOT_FOUND', 404, 'No such resource');
export const MethodNotAllowedError = defineError('JCT_METHOD_NOT_ALLOWED', 405, 'Method not allowed');
export const UnauthorizedError = defineError('JCT_UNAUTHORIZED', 401, 'Authentication is required');
export const ForbiddenError = defineError('JCT_FORBIDDEN', 403, 'Access denied');
export const InternalError = defineError('JCT_INTERNAL', 500, 'Internal server error');
export const UnavailableError = defineError('JCT_UNAVAILABLE', 503, 'The server is not ready');
export const PluginError = defineError('JCT_PLUGIN', 500, 'A plugin failed');
export const LifecycleError = defineError('JCT_LIFECYCLE', 500, 'Invalid lifecycle transition');
export const StorageError = defineError('JCT_STORAGE', 500, 'Storage failure');

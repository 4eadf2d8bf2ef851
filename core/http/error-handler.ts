import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  BadJsonError,
  BodyTooLargeError,
  InternalError,
  JunctionError,
  NotFoundError,
  UnavailableError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../errors.js';

/**
 * Maps every error to `{message, code}` with a fitting status. Stack traces go to the log only;
 * a 5xx never reveals the message of an unexpected error.
 */
export function installErrorHandling(http: FastifyInstance): void {
  http.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const mapped = mapError(err);
    if (mapped.statusCode >= 500) request.log.error({ err }, 'request failed');
    else request.log.debug({ err: { message: err.message, code: err.code } }, 'request rejected');
    if (mapped.headers) reply.headers(mapped.headers);
    return reply.code(mapped.statusCode).send(mapped.toJSON());
  });

  http.setNotFoundHandler((request, reply) => {
    const err = new NotFoundError(`no route for ${request.method} ${request.url.split('?')[0]}`);
    return reply.code(404).send(err.toJSON());
  });
}

export function mapError(err: FastifyError | Error): JunctionError {
  if (err instanceof JunctionError) return err;
  const e = err as FastifyError & { validation?: unknown[]; validationContext?: string };
  if (e.validation) return new ValidationError(validationMessage(e));
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new BadJsonError(
        e.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'The request body is empty but declared JSON' : undefined,
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new BodyTooLargeError();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaTypeError();
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ValidationError('Content-Length does not match the body');
  }
  if (e.name === 'SyntaxError' && e.statusCode === 400) return new BadJsonError();
  if (e.statusCode === 503) return new UnavailableError();
  // Other client errors raised by Fastify itself (e.g. malformed URL): keep the status.
  if (
    typeof e.statusCode === 'number' &&
    e.statusCode >= 400 &&
    e.statusCode < 500 &&
    e.code?.startsWith('FST_')
  ) {
    return new JunctionError('JCT_VALIDATION', e.statusCode, e.message);
  }
  return new InternalError();
}

function validationMessage(e: FastifyError & { validation?: unknown[]; validationContext?: string }): string {
  const first = (e.validation?.[0] ?? {}) as {
    instancePath?: string;
    keyword?: string;
    params?: Record<string, unknown>;
    message?: string;
  };
  const where = e.validationContext ?? 'request';
  const path = (first.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  let field = path;
  if (first.keyword === 'required')
    field = path ? `${path}.${String(first.params?.missingProperty)}` : String(first.params?.missingProperty);
  if (first.keyword === 'additionalProperties')
    field = path
      ? `${path}.${String(first.params?.additionalProperty)}`
      : String(first.params?.additionalProperty);
  const problem =
    first.keyword === 'required'
      ? 'is required'
      : first.keyword === 'additionalProperties'
        ? 'is not allowed'
        : (first.message ?? 'is invalid');
  return field ? `${where} parameter "${field}" ${problem}` : `${where} ${problem}`;
}

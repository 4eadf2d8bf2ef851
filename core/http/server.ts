import { parse as parseQuery } from 'node:querystring';
import swagger from '@fastify/swagger';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
} from 'fastify';
import type { Logger } from 'pino';
import { Histogram, type Registry } from 'prom-client';
import type { JunctionConfig } from '../config/schema.js';
import { installErrorHandling, mapError } from './error-handler.js';
import { prefersXml, toXml } from './xml.js';

export interface HttpOptions {
  config: JunctionConfig;
  logger: Logger;
  metrics: Registry;
  version: string;
}

/**
 * The Fastify instance every route lives on: JSON and form bodies, XML answers by `Accept`, one
 * log line per request, the error model of docs/errors.md, request metrics and the OpenAPI
 * document built from the routes' schemas.
 */
export async function createHttp(options: HttpOptions): Promise<FastifyInstance> {
  const { config, logger, metrics } = options;
  const http: FastifyInstance = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Our own onResponse hook writes the one line per request.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimit,
    // Requests in flight finish on close; idle keep-alive sockets are closed at once.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // Errors raised before routing (a malformed percent-encoding in the path) answer in the same
    // error model as everything else.
    frameworkErrors: (error, _request, reply) => {
      const mapped = mapError(error);
      void (reply as FastifyReply).code(mapped.statusCode).send(mapped.toJSON());
    },
    ajv: { customOptions: { coerceTypes: 'array', allErrors: false, removeAdditional: true } },
  });

  // Form bodies (the token endpoint, alias calls): a repeated field becomes an array, so the
  // token endpoint can reject repeated parameters (RFC 6749 §3.2).
  http.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_req, body, done) => {
      done(null, { ...parseQuery(body as string) });
    },
  );

  http.addHook('onRequest', (request, reply, done) => {
    if (prefersXml(request.headers.accept)) {
      reply.header('content-type', 'application/xml; charset=utf-8');
      reply.serializer(toXml);
    }
    done();
  });

  const duration = new Histogram({
    name: 'junction_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [metrics],
  });

  // One line per request. The URL is logged without its query: query strings may carry values
  // a caller would not want in a log; headers (tokens) are never logged.
  http.addHook('onResponse', (request, reply, done) => {
    const ms = reply.elapsedTime;
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe({ method: request.method, route, status: reply.statusCode }, ms / 1000);
    request.log.info(
      {
        method: request.method,
        url: request.url.split('?')[0],
        status: reply.statusCode,
        ms: Math.round(ms * 100) / 100,
      },
      'request',
    );
    done();
  });

  installErrorHandling(http);

  await http.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Junction', version: options.version },
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      },
    },
  });
  return http;
}

import { performance } from 'node:perf_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import {
  MethodNotAllowedError,
  NotFoundError,
  UnsupportedMediaTypeError,
  ValidationError,
} from '../../core/errors.js';
import { ANONYMOUS, type ServiceRegistry, type UserRef } from '../../core/services/types.js';
import type { BearerVerifier } from '../auth/types.js';
import type { TrackerRecorder } from '../tracker/types.js';
import type { CompiledAlias } from './compile.js';
import { mergeInput } from './input.js';
import { splitRequestPath } from './pattern.js';
import { answerForServiceError } from './service-errors.js';
import type { AliasTable } from './table.js';

/** Request headers whose value becomes the tracker's `externalId` (first one present wins). */
export const EXTERNAL_ID_HEADERS = ['x-external-id', 'x-request-id'] as const;
const MAX_EXTERNAL_ID = 200;

export interface AliasHandlerDeps {
  table: AliasTable;
  services: ServiceRegistry;
  clock: Clock;
  logger: Logger;
  verifier: () => BearerVerifier | undefined;
  tracker: () => TrackerRecorder | undefined;
}

/** Serves every request under `/api`: route, authorize, merge the input, invoke, answer, track. */
export class AliasHandler {
  constructor(private readonly deps: AliasHandlerDeps) {}

  readonly handle = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const { alias, params } = this.route(request);
    // Timed only when tracked: the untracked path stays as short as it can be.
    const startedAt = alias.logToTracker ? performance.now() : 0;
    const timeReceived = alias.logToTracker ? this.deps.clock.now() : 0;
    let user: UserRef = alias.runAs ?? ANONYMOUS;
    let ok = false;
    try {
      if (alias.needsToken) user = await this.caller(alias, request.headers.authorization);
      const input = mergeInput(params, request.query, bodyOf(request), alias.parameters);
      let output: unknown;
      try {
        output = await this.deps.services.invoke(alias.service, input, { user, package: alias.packageName });
      } catch (err) {
        throw answerForServiceError(err, alias.service);
      }
      ok = true;
      return send(reply, output);
    } finally {
      if (alias.logToTracker)
        this.track(alias, request, user, timeReceived, performance.now() - startedAt, ok);
    }
  };

  private route(request: FastifyRequest): { alias: CompiledAlias; params: Record<string, string> } {
    const url = request.url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    // The routes are `/api` and `/api/*`: what follows `/api/` is the alias's path.
    const segments = splitRequestPath(path.length > 4 ? path.slice(5) : '');
    // Fastify refuses such a URL before it gets here; checked again rather than assumed.
    if (!segments) throw new ValidationError(`The request path ${path} is not valid percent-encoding`);
    const match = this.deps.table.router.match(request.method, segments);
    if (match.kind === 'found') return { alias: match.target, params: match.params };
    if (match.kind === 'method-not-allowed') {
      throw new MethodNotAllowedError(`${path} does not accept ${request.method}`, {
        headers: { allow: match.allow.join(', ') },
      });
    }
    throw new NotFoundError(`no alias serves ${request.method} ${path}`);
  }

  /**
   * The user the service sees on an alias that needs a token: Run As, else the caller. (Without a
   * token it is Run As or Anonymous, set before.) 401/403 from the verifier otherwise.
   */
  private async caller(alias: CompiledAlias, authorization: string | undefined): Promise<UserRef> {
    // compileAliases refuses an alias that needs a token without a verifier, so one is there.
    const caller = await this.deps.verifier()!.require(authorization, alias.rule);
    return alias.runAs ?? caller;
  }

  private track(
    alias: CompiledAlias,
    request: FastifyRequest,
    user: UserRef,
    timeReceived: number,
    durationMs: number,
    ok: boolean,
  ): void {
    const tracker = this.deps.tracker();
    if (!tracker) return;
    try {
      tracker.record({
        externalId: externalId(request),
        documentType: alias.documentType,
        senderId: request.ip,
        receiverId: alias.pattern.url,
        userName: user.username,
        timeReceived: new Date(timeReceived).toISOString(),
        state: ok ? 'OK' : 'ERROR',
        durationMs: Math.round(durationMs * 1000) / 1000,
      });
    } catch (err) {
      // Tracking never fails the call it tracks.
      this.deps.logger.error({ err }, 'could not record a tracker document');
    }
  }
}

/**
 * The body whose fields are inputs: JSON or a form. Fastify also parses text/plain (into a
 * string), which an alias does not take.
 */
function bodyOf(request: FastifyRequest): unknown {
  const body = request.body;
  if (typeof body === 'string') {
    const type = request.headers['content-type'] ?? '';
    if (!/json/i.test(type)) {
      throw new UnsupportedMediaTypeError(`An alias takes a JSON or form body, not ${type.split(';')[0]}`);
    }
  }
  return body;
}

function externalId(request: FastifyRequest): string {
  for (const name of EXTERNAL_ID_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string' && value !== '') return value.slice(0, MAX_EXTERNAL_ID);
  }
  return request.id;
}

/**
 * The service's output as JSON, or as XML when the core's `Accept` negotiation chose XML (its
 * onRequest hook then set the content type and an XML serializer, which Fastify applies to
 * strings too). For JSON the text is made here: Fastify would send a string output as is.
 */
function send(reply: FastifyReply, output: unknown): FastifyReply {
  const value = output === undefined ? null : output;
  const type = reply.getHeader('content-type');
  if (typeof type === 'string' && type.includes('xml')) return reply.send(value);
  return reply.header('content-type', 'application/json; charset=utf-8').send(JSON.stringify(value));
}

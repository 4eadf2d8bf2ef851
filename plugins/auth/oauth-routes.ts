import type { FastifyError, FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import type { JunctionApp } from '../../core/plugins/types.js';
import type { ClientAuthenticator } from './client-authenticator.js';
import { formSchema, oauthErrorSchema, readParams, required, type FormBody } from './form-params.js';
import { OAuthError } from './oauth-error.js';
import type { TokenService } from './token-service.js';

const CLIENT_PARAMS = ['client_id', 'client_secret'] as const;
const TOKEN_PARAMS = [
  'grant_type',
  'username',
  'password',
  'refresh_token',
  'scope',
  ...CLIENT_PARAMS,
] as const;
const TOKEN_ARG_PARAMS = ['token', 'token_type_hint', ...CLIENT_PARAMS] as const;

const DESCRIPTIONS: Record<string, string> = {
  grant_type: '`password` or `refresh_token`',
  username: 'password grant: the user',
  password: 'password grant: the password',
  refresh_token: 'refresh grant: the refresh token of the last answer',
  scope: 'optional: space-separated subset of `read`',
  client_id: 'the client (or HTTP Basic)',
  client_secret: 'the client secret (or HTTP Basic)',
  token: 'the access or refresh token',
  token_type_hint: 'optional: `access_token` or `refresh_token` (a hint only)',
};

const tokenResponseSchema = {
  type: 'object',
  properties: {
    access_token: { type: 'string' },
    token_type: { type: 'string' },
    refresh_token: { type: 'string' },
    expires_in: { type: 'integer' },
    scope: { type: 'string' },
    token_issued_counter: { type: 'integer' },
    last_token_issued_date: { type: 'string' },
  },
} as const;

const introspectionSchema = {
  type: 'object',
  properties: {
    active: { type: 'boolean' },
    scope: { type: 'string' },
    client_id: { type: 'string' },
    username: { type: 'string' },
    sub: { type: 'string' },
    token_type: { type: 'string' },
    exp: { type: 'integer' },
    iat: { type: 'integer' },
  },
  required: ['active'],
} as const;

const errorResponses = {
  400: oauthErrorSchema,
  401: oauthErrorSchema,
  413: oauthErrorSchema,
  500: oauthErrorSchema,
};

/** RFC 6749 §5.1: no answer of these endpoints may be cached. */
const noStore: onSendHookHandler = (_request, reply, payload, done) => {
  reply.header('cache-control', 'no-store');
  reply.header('pragma', 'no-cache');
  done(null, payload);
};

/**
 * `POST /oauth/token`, `POST /oauth/revoke`, `POST /oauth/introspect`. Their errors are RFC 6749
 * bodies, so they have their own error handler: a body that fails the schema or does not parse is
 * an `invalid_request`, not a `JCT_VALIDATION`.
 */
export function registerOAuthRoutes(
  app: JunctionApp,
  clients: ClientAuthenticator,
  service: TokenService,
): void {
  const common = { onSend: noStore, errorHandler: oauthErrorHandler };

  app.route({
    method: 'POST',
    url: '/oauth/token',
    ...common,
    schema: {
      summary: 'Issue tokens: password and refresh_token grants (RFC 6749 §4.3, §6)',
      tags: ['oauth'],
      consumes: ['application/x-www-form-urlencoded'],
      body: formSchema(TOKEN_PARAMS, DESCRIPTIONS),
      response: { 200: tokenResponseSchema, ...errorResponses, 429: oauthErrorSchema },
    },
    handler: async (request: FastifyRequest) => {
      const p = readParams(request.body as FormBody, TOKEN_PARAMS);
      const grantType = required(p.grant_type, 'grant_type');
      const clientId = clients.authenticate(request.headers.authorization, p);
      switch (grantType) {
        case 'password':
          return service.passwordGrant({
            clientId,
            username: required(p.username, 'username'),
            password: required(p.password, 'password'),
            scope: p.scope,
            address: request.ip,
          });
        case 'refresh_token':
          return service.refreshGrant({
            clientId,
            refreshToken: required(p.refresh_token, 'refresh_token'),
            scope: p.scope,
          });
        default:
          throw new OAuthError('unsupported_grant_type', `grant type "${grantType}" is not supported`);
      }
    },
  });

  app.route({
    method: 'POST',
    url: '/oauth/revoke',
    ...common,
    schema: {
      summary: 'Revoke a token (RFC 7009); a refresh token takes its whole grant with it',
      tags: ['oauth'],
      consumes: ['application/x-www-form-urlencoded'],
      body: formSchema(TOKEN_ARG_PARAMS, DESCRIPTIONS),
      response: {
        200: { description: 'Revoked, or was not a valid token', type: 'null' },
        ...errorResponses,
      },
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      const p = readParams(request.body as FormBody, TOKEN_ARG_PARAMS);
      const token = required(p.token, 'token');
      const clientId = clients.authenticate(request.headers.authorization, p);
      await service.revoke(clientId, token);
      return reply.code(200).send();
    },
  });

  app.route({
    method: 'POST',
    url: '/oauth/introspect',
    ...common,
    schema: {
      summary: 'Introspect a token (RFC 7662)',
      tags: ['oauth'],
      consumes: ['application/x-www-form-urlencoded'],
      body: formSchema(TOKEN_ARG_PARAMS, DESCRIPTIONS),
      response: { 200: introspectionSchema, ...errorResponses },
    },
    handler: async (request: FastifyRequest) => {
      const p = readParams(request.body as FormBody, TOKEN_ARG_PARAMS);
      const token = required(p.token, 'token');
      clients.authenticate(request.headers.authorization, p);
      return service.introspect(token);
    },
  });
}

function oauthErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const mapped = toOAuthError(err);
  if (mapped.statusCode >= 500) request.log.error({ err }, 'OAuth request failed');
  return reply.code(mapped.statusCode).headers(mapped.headers).send(mapped.toJSON());
}

function toOAuthError(err: FastifyError): OAuthError {
  if (err instanceof OAuthError) return err;
  if ((err as { validation?: unknown }).validation) {
    return new OAuthError(
      'invalid_request',
      'the body must be form-urlencoded parameters with string values',
    );
  }
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new OAuthError('invalid_request', 'the body is too large', 413);
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  return new OAuthError('server_error', 'the server failed; try again', 500);
}

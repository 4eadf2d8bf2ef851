import { defineError } from '../../core/errors.js';

/**
 * Errors of protected resources (RFC 6750). The token, revocation and introspection endpoints
 * answer RFC 6749 bodies instead (see oauth-error.ts); these are for everything a bearer token
 * guards.
 */
export const InvalidTokenError = defineError(
  'JCT_AUTH_INVALID_TOKEN',
  401,
  'The bearer token is malformed, unknown, expired or revoked',
);

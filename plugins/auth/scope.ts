import { OAuthError } from './oauth-error.js';

/** The scopes Junction grants; a grant gets all of them unless it asks for fewer. */
export const GRANTABLE_SCOPES: readonly string[] = ['read'];

/**
 * The scope to grant for a request's `scope` parameter (RFC 6749 §3.3): absent or empty means
 * everything `allowed`; otherwise a space-separated subset of `allowed`, or `invalid_scope`.
 */
export function grantScope(requested: string | undefined, allowed: readonly string[]): string {
  if (requested === undefined || requested.trim() === '') return allowed.join(' ');
  const asked = new Set(requested.split(' ').filter((s) => s !== ''));
  const unknown = [...asked].filter((s) => !allowed.includes(s));
  if (unknown.length > 0) {
    throw new OAuthError('invalid_scope', `scope not grantable here: ${unknown.join(' ')}`);
  }
  return allowed.filter((s) => asked.has(s)).join(' ');
}

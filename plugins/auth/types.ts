/**
 * What the auth plugin offers other plugins, registered in the container under `AUTH_VERIFIER`.
 * Plugins that protect routes (alias, flux, tracker) resolve it in `start()` (or in `register()`
 * when they list `auth` in `dependsOn`).
 */
import type { UserRef } from '../../core/services/types.js';

export const AUTH_VERIFIER = 'auth.verifier';

export interface AccessRule {
  /** Only these usernames (when given). */
  users?: string[];
  /** Only members of at least one of these groups (when given). */
  groups?: string[];
}

export interface BearerVerifier {
  /**
   * The user of an `Authorization` header value: undefined when there is no header (anonymous).
   * Rejects with a 401 JunctionError (`JCT_AUTH_INVALID_TOKEN`, header
   * `WWW-Authenticate: Bearer realm="junction", error="invalid_token"`) for a malformed, unknown,
   * expired or revoked token. Never touches the disk on the hot path.
   */
  authenticate(authorization: string | undefined): Promise<UserRef | undefined>;
  /**
   * Like `authenticate`, but a user is required: 401 (`JCT_UNAUTHORIZED`, header
   * `WWW-Authenticate: Bearer realm="junction"`) without a token, 403 (`JCT_FORBIDDEN`) when the
   * user does not satisfy `rule`.
   */
  require(authorization: string | undefined, rule?: AccessRule): Promise<UserRef>;
  /** Whether a known user satisfies `rule` (no token involved). */
  allows(user: UserRef, rule: AccessRule): boolean;
  /** The configured user of that name (for an alias's `runAs`), or undefined. */
  user(username: string): UserRef | undefined;
}

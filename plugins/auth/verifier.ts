import { ForbiddenError, UnauthorizedError } from '../../core/errors.js';
import type { UserRef } from '../../core/services/types.js';
import { InvalidTokenError } from './errors.js';
import { hashToken } from './token-codec.js';
import type { TokenStore } from './token-store.js';
import type { AccessRule, BearerVerifier } from './types.js';
import type { UserDirectory } from './user-directory.js';

const REALM = 'Bearer realm="junction"';
// RFC 6750 §2.1: the scheme is case-insensitive, then one or more spaces and the token (ours
// are always 43 base64url characters; anything else is malformed).
const BEARER = /^Bearer +([A-Za-z0-9_-]{43}) *$/i;
/** Bound of the token → hash memo; it is dropped whole when full. */
const HASH_MEMO_SIZE = 10_000;

/**
 * The bearer check other plugins use (`AUTH_VERIFIER`). Everything it reads is in memory: a
 * SHA-256 of the token, a Map lookup, an expiry comparison with the app's clock. Revocation
 * removes tokens from that Map before it is answered, so a revoked token fails at once.
 */
export class TokenVerifier implements BearerVerifier {
  // Clients present the same access token many times: remember its hash rather than recompute
  // the SHA-256 (a third of the check's cost). Only a memo: liveness is always read from the
  // token store, so a revoked token fails even while its hash is remembered.
  private readonly hashes = new Map<string, string>();

  constructor(
    private readonly tokens: TokenStore,
    private readonly users: UserDirectory,
  ) {}

  async authenticate(authorization: string | undefined): Promise<UserRef | undefined> {
    return this.resolve(authorization);
  }

  async require(authorization: string | undefined, rule?: AccessRule): Promise<UserRef> {
    const user = this.resolve(authorization);
    if (user === undefined) {
      throw new UnauthorizedError('A bearer token is required', { headers: { 'www-authenticate': REALM } });
    }
    if (rule !== undefined && !this.allows(user, rule)) {
      throw new ForbiddenError(`User "${user.username}" is not allowed to do this`);
    }
    return user;
  }

  /**
   * Both parts of a rule must hold when both are given; an empty or absent list places no
   * restriction.
   */
  allows(user: UserRef, rule: AccessRule): boolean {
    if (rule.users && rule.users.length > 0 && !rule.users.includes(user.username)) return false;
    if (rule.groups && rule.groups.length > 0 && !rule.groups.some((g) => user.groups.includes(g)))
      return false;
    return true;
  }

  user(username: string): UserRef | undefined {
    return this.users.user(username);
  }

  /** Synchronous core of `authenticate`; throws `JCT_AUTH_INVALID_TOKEN`. */
  resolve(authorization: string | undefined): UserRef | undefined {
    if (authorization === undefined || authorization === '') return undefined;
    const token = BEARER.exec(authorization)?.[1];
    if (token === undefined) throw invalidToken('The Authorization header is not a Junction bearer token');
    let hash = this.hashes.get(token);
    if (hash === undefined) {
      hash = hashToken(token);
      if (this.hashes.size >= HASH_MEMO_SIZE) this.hashes.clear();
      this.hashes.set(token, hash);
    }
    const record = this.tokens.live(hash);
    if (record === undefined || record.kind !== 'access') {
      this.hashes.delete(token);
      throw invalidToken('The access token is unknown, expired or revoked');
    }
    const user = this.users.user(record.username);
    if (user === undefined) throw invalidToken('The user of this access token no longer exists');
    return user;
  }
}

function invalidToken(description: string): InstanceType<typeof InvalidTokenError> {
  return new InvalidTokenError(description, {
    headers: {
      'www-authenticate': `${REALM}, error="invalid_token", error_description="${description}"`,
    },
  });
}

import type { Logger } from 'pino';
import type { Clock } from '../../core/clock.js';
import type { AuthMetrics } from './auth-metrics.js';
import type { BatchOp } from '../../core/storage/types.js';
import type { UserRef } from '../../core/services/types.js';
import type { IssueDateFormatter } from './issue-date.js';
import type { LoginThrottle } from './login-throttle.js';
import { OAuthError } from './oauth-error.js';
import { GRANTABLE_SCOPES, grantScope } from './scope.js';
import { hashToken, isTokenShaped, newFamilyId, newToken } from './token-codec.js';
import type { TokenRecord, TokenStore } from './token-store.js';
import type { UserDirectory } from './user-directory.js';

/** The token endpoint's answer (SEED-SPEC §2.1), for both grants. */
export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_issued_counter: number;
  last_token_issued_date: string;
}

/** RFC 7662 §2.2. */
export interface IntrospectionResponse {
  active: boolean;
  scope?: string;
  client_id?: string;
  username?: string;
  sub?: string;
  token_type?: string;
  exp?: number;
  iat?: number;
}

export interface Lifetimes {
  accessTtlMs: number;
  refreshTtlMs: number;
}

export interface PasswordGrant {
  clientId: string;
  username: string;
  password: string;
  scope: string | undefined;
  address: string;
}

export interface RefreshGrant {
  clientId: string;
  refreshToken: string;
  scope: string | undefined;
}

/**
 * The grants, revocation and introspection. Every answer that hands out or withdraws a token is
 * preceded by an awaited durable write of the change; memory (what the bearer check reads) is
 * changed first, synchronously, so a revocation takes effect before it is answered.
 */
export class TokenService {
  constructor(
    private readonly tokens: TokenStore,
    private readonly users: UserDirectory,
    private readonly throttle: LoginThrottle,
    private readonly clock: Clock,
    private readonly lifetimes: Lifetimes,
    private readonly dates: IssueDateFormatter,
    private readonly logger: Logger,
    private readonly metrics: AuthMetrics,
  ) {}

  async passwordGrant(grant: PasswordGrant): Promise<TokenResponse> {
    // Scope first: a request that cannot succeed costs neither a check nor a lockout slot.
    const scope = grantScope(grant.scope, GRANTABLE_SCOPES);
    const admission = await this.throttle.admit(grant.username, grant.address);
    if ('retryAfter' in admission) {
      this.metrics.grant('password', 'locked');
      const wait = admission.retryAfter;
      throw new OAuthError('invalid_grant', `too many failed logins; try again in ${wait} seconds`, 429, {
        'retry-after': String(wait),
      });
    }
    let user: UserRef | undefined;
    try {
      user = await this.users.verify(grant.username, grant.password);
    } finally {
      if (user === undefined) admission.attempt.failed();
      else admission.attempt.succeeded();
    }
    if (user === undefined) {
      this.metrics.grant('password', 'refused');
      this.logger.info({ username: grant.username, address: grant.address }, 'password grant refused');
      throw new OAuthError('invalid_grant', 'invalid username or password');
    }
    const answer = await this.issue(user, grant.clientId, newFamilyId(), scope, scope, []);
    this.metrics.grant('password', 'issued');
    return answer;
  }

  async refreshGrant(grant: RefreshGrant): Promise<TokenResponse> {
    try {
      const answer = await this.rotate(grant);
      this.metrics.grant('refresh_token', 'issued');
      return answer;
    } catch (err) {
      if (err instanceof OAuthError) this.metrics.grant('refresh_token', err.reuse ? 'reuse' : 'refused');
      throw err;
    }
  }

  private async rotate(grant: RefreshGrant): Promise<TokenResponse> {
    const hash = isTokenShaped(grant.refreshToken) ? hashToken(grant.refreshToken) : undefined;
    const record = hash === undefined ? undefined : this.tokens.get(hash);
    if (hash === undefined || record === undefined || record.kind !== 'refresh') {
      throw new OAuthError('invalid_grant', 'unknown or revoked refresh token');
    }
    if (record.clientId !== grant.clientId) {
      throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
    }
    if (record.retired) {
      // RFC 9700 §4.14.2: a used refresh token presented again means it leaked (or a client
      // raced itself): the whole grant is revoked, the legitimate holder logs in again.
      await this.tokens.store.batch(this.tokens.removeFamily(record.family));
      this.logger.warn(
        { username: record.username, family: record.family },
        'refresh token reused: the grant and all its tokens are revoked',
      );
      throw new OAuthError(
        'invalid_grant',
        'the refresh token was already used; the grant is revoked',
        400,
        {},
        true,
      );
    }
    if (record.expiresAt <= this.clock.now()) {
      await this.tokens.store.batch(this.tokens.remove(hash), { durable: false });
      throw new OAuthError('invalid_grant', 'the refresh token expired');
    }
    const user = this.users.user(record.username);
    if (user === undefined) {
      await this.tokens.store.batch(this.tokens.removeFamily(record.family));
      throw new OAuthError('invalid_grant', 'the user of this refresh token no longer exists');
    }
    // The refresh token keeps the grant's scope; the access token may ask for less (RFC 6749 §6).
    const scope = grantScope(grant.scope, record.scope.split(' '));
    const retire = this.tokens.retire(hash);
    try {
      return await this.issue(user, record.clientId, record.family, scope, record.scope, retire);
    } catch (err) {
      this.tokens.unretire(hash);
      throw err;
    }
  }

  /** RFC 7009: revoking a refresh token revokes its whole grant; unknown tokens are no error. */
  async revoke(clientId: string, token: string): Promise<void> {
    const hash = isTokenShaped(token) ? hashToken(token) : undefined;
    const record = hash === undefined ? undefined : this.tokens.get(hash);
    if (hash === undefined || record === undefined) return;
    if (record.clientId !== clientId) {
      throw new OAuthError('unauthorized_client', 'the token was issued to another client');
    }
    const ops =
      record.kind === 'refresh' ? this.tokens.removeFamily(record.family) : this.tokens.remove(hash);
    await this.tokens.store.batch(ops);
  }

  /** RFC 7662: any authenticated client may ask; dead or unknown tokens are `{active: false}`. */
  introspect(token: string): IntrospectionResponse {
    const record = isTokenShaped(token) ? this.tokens.live(hashToken(token)) : undefined;
    if (record === undefined || this.users.user(record.username) === undefined) return { active: false };
    return {
      active: true,
      scope: record.scope,
      client_id: record.clientId,
      username: record.username,
      sub: record.username,
      ...(record.kind === 'access' ? { token_type: 'bearer' } : {}),
      exp: Math.floor(record.expiresAt / 1000),
      iat: Math.floor(record.issuedAt / 1000),
    };
  }

  private async issue(
    user: UserRef,
    clientId: string,
    family: string,
    accessScope: string,
    refreshScope: string,
    extraOps: BatchOp[],
  ): Promise<TokenResponse> {
    const now = this.clock.now();
    const access = newToken();
    const refresh = newToken();
    const accessHash = hashToken(access);
    const refreshHash = hashToken(refresh);
    const base = { family, username: user.username, clientId, issuedAt: now };
    const accessRecord: TokenRecord = {
      ...base,
      kind: 'access',
      scope: accessScope,
      expiresAt: now + this.lifetimes.accessTtlMs,
    };
    const refreshRecord: TokenRecord = {
      ...base,
      kind: 'refresh',
      scope: refreshScope,
      expiresAt: now + this.lifetimes.refreshTtlMs,
    };
    const { stats, op } = this.users.recordIssue(user.username, now);
    const ops = [
      ...extraOps,
      this.tokens.add(accessHash, accessRecord),
      this.tokens.add(refreshHash, refreshRecord),
      op,
    ];
    try {
      await this.tokens.store.batch(ops);
    } catch (err) {
      // Never answered, so never usable: forget them.
      this.tokens.remove(accessHash);
      this.tokens.remove(refreshHash);
      throw err;
    }
    return {
      access_token: access,
      token_type: 'bearer',
      refresh_token: refresh,
      expires_in: Math.floor(this.lifetimes.accessTtlMs / 1000),
      scope: accessScope,
      token_issued_counter: stats.counter,
      last_token_issued_date: this.dates.formatDate(stats.lastIssuedAt),
    };
  }
}

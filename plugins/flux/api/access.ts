import type { FastifyRequest } from 'fastify';
import { ForbiddenError, UnauthorizedError } from '../../../core/errors.js';
import type { UserRef } from '../../../core/services/types.js';
import type { AccessRule, BearerVerifier } from '../../auth/types.js';

type Rule = AccessRule | undefined;

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="junction"' };

/**
 * Who may call /flux-api (CONTRACT §5, SEED-SPEC §5.5). The API is open by default and a bearer
 * token elevates the caller; a token that is present but invalid is always a 401, never ignored.
 * A workflow with `access` needs a user satisfying it (401 without a token, 403 with the wrong
 * user); `flux.require-auth` makes a token necessary for every call.
 *
 * Without the auth plugin there is no verifier: every call is anonymous, an `Authorization`
 * header is refused with 401 (it cannot be checked), and so is any workflow with `access`.
 */
export class FluxAccess {
  constructor(
    private readonly requireAuth: boolean,
    private readonly verifier: () => BearerVerifier | undefined,
  ) {}

  /** The caller (undefined: anonymous). 401 for an invalid token, or for none under require-auth. */
  async caller(request: FastifyRequest): Promise<UserRef | undefined> {
    const header = request.headers.authorization;
    const verifier = this.verifier();
    let user: UserRef | undefined;
    if (verifier) {
      user = await verifier.authenticate(header);
    } else if (header !== undefined) {
      throw new UnauthorizedError('bearer tokens cannot be verified: the auth plugin is not loaded', {
        headers: CHALLENGE,
      });
    }
    if (!user && this.requireAuth) {
      throw new UnauthorizedError('a bearer token is required (flux.require-auth)', { headers: CHALLENGE });
    }
    return user;
  }

  /**
   * The caller, checked against the rule `ruleOf` resolves (a workflow's `access`). The caller is
   * authenticated first, so a bad token is a 401 before anything is looked up.
   */
  async authorize(request: FastifyRequest, ruleOf: () => Promise<Rule>): Promise<UserRef | undefined> {
    const user = await this.caller(request);
    const rule = await ruleOf();
    if (rule === undefined) return user;
    if (!user) {
      throw new UnauthorizedError('this workflow needs a bearer token of an allowed user', {
        headers: CHALLENGE,
      });
    }
    if (!this.allows(user, rule)) {
      throw new ForbiddenError(`user ${user.username} may not use this workflow`);
    }
    return user;
  }

  /** Whether `user` (undefined: anonymous) satisfies `rule` (undefined: open). */
  allows(user: UserRef | undefined, rule: Rule): boolean {
    if (rule === undefined) return true;
    if (!user) return false;
    const verifier = this.verifier();
    return verifier ? verifier.allows(user, rule) : false;
  }
}

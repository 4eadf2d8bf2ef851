/**
 * Who an event reaches. A broadcast event (no `contextId`) and the executions it triggers reach
 * only workflows whose `access` rule the sender satisfies; the others are skipped silently, as if
 * they did not listen (CONTRACT §5). The check itself is the auth plugin's (`BearerVerifier.allows`)
 * when the engine runs in the server; `satisfiesRule` is the same rule for an engine on its own.
 */
import type { UserRef } from '../../../core/services/types.js';

export interface AccessRuleSpec {
  groups?: string[];
  users?: string[];
}

/** Whether `user` (undefined: anonymous) may use a workflow with `rule` (undefined: open). */
export type AccessCheck = (user: UserRef | undefined, rule: AccessRuleSpec) => boolean;

/**
 * Both parts of a rule must hold when both are given; an empty or absent list places no
 * restriction; an anonymous sender satisfies no rule.
 */
export const satisfiesRule: AccessCheck = (user, rule) => {
  if (!user) return false;
  if (rule.users && rule.users.length > 0 && !rule.users.includes(user.username)) return false;
  if (rule.groups && rule.groups.length > 0 && !rule.groups.some((g) => user.groups.includes(g)))
    return false;
  return true;
};

/** `check` applied to `rule`, open when there is none. */
export function mayReach(
  check: AccessCheck,
  user: UserRef | undefined,
  rule: AccessRuleSpec | undefined,
): boolean {
  return rule === undefined || check(user, rule);
}

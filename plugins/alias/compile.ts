import { ANONYMOUS, type AliasSpec, type PackageSource, type UserRef } from '../../core/services/types.js';
import type { AccessRule, BearerVerifier } from '../auth/types.js';
import { AliasInvalidError } from './errors.js';
import { parsePattern, type UrlPattern } from './pattern.js';

/** The document type of tracker documents when an alias names none (CONTRACT §5). */
export const DEFAULT_DOCUMENT_TYPE = 'URL Alias';

/** The file the alias plugin reads besides what the registry gives (see `aliasesWithRunAs`). */

/** Methods an alias may name; any of them when it names none. */
export const ALIAS_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

/** An alias ready to serve: validated, with its users resolved once at deploy time. */
export interface CompiledAlias {
  packageName: string;
  /** As in package.yaml (for `GET /packages`, logs and the tracker's `receiverId`). */
  spec: AliasSpec;
  pattern: UrlPattern;
  /** Upper case; undefined: any method. */
  method: string | undefined;
  service: string;
  /** The inputs passed on (undefined: all of them). */
  parameters: ReadonlySet<string> | undefined;
  /** A bearer token is needed: `secured`, or `users`/`groups` given (they imply it). */
  needsToken: boolean;
  /** Who may call it, checked by the verifier; undefined: any user with a valid token. */
  rule: AccessRule | undefined;
  /** The user the service runs as; undefined: the caller (secured) or Anonymous. */
  runAs: UserRef | undefined;
  logToTracker: boolean;
  documentType: string;
}

/**
 * Validates the aliases of a package version and resolves their `runAs` users. Throws
 * JCT_ALIAS_INVALID naming the package and the alias: the deploy fails and the previous version
 * keeps serving.
 */
export function compileAliases(pkg: PackageSource, verifier: BearerVerifier | undefined): CompiledAlias[] {
  return pkg.aliases.map((spec, index) => {
    const where = `package "${pkg.name}", alias ${index + 1} (${describeSpec(spec)})`;
    const fail = (reason: string): never => {
      throw new AliasInvalidError(`${where}: ${reason}`);
    };
    let pattern: UrlPattern;
    try {
      pattern = parsePattern(spec.url);
    } catch (err) {
      return fail((err as Error).message);
    }
    const method = compileMethod(spec.method, fail);
    const service = compileService(spec.service, pkg, fail);
    // `parameters: []` passes nothing on; an empty `users` or `groups` restricts nothing.
    const parameters = stringList(spec.parameters, 'parameters', fail, true);
    const users = stringList(spec.users, 'users', fail);
    const groups = stringList(spec.groups, 'groups', fail);
    const needsToken = spec.secured === true || users !== undefined || groups !== undefined;
    if (needsToken && !verifier) fail('it is secured but the auth plugin is not loaded');
    const runAs = compileRunAs(spec.runAs, verifier, fail);
    const documentType = spec.documentType ?? DEFAULT_DOCUMENT_TYPE;
    if (typeof documentType !== 'string' || documentType.trim() === '' || documentType.includes('\u0000')) {
      fail('"documentType" must be a non-empty string');
    }
    return {
      packageName: pkg.name,
      spec,
      pattern,
      method,
      service,
      parameters: parameters && new Set(parameters),
      needsToken,
      rule: users || groups ? { ...(users ? { users } : {}), ...(groups ? { groups } : {}) } : undefined,
      runAs,
      logToTracker: spec.logToTracker === true,
      documentType,
    };
  });
}

/** `GET /orders/{id}` or `* /orders/{id}` for messages. */
export function describeSpec(spec: Pick<AliasSpec, 'url' | 'method'>): string {
  return `${typeof spec.method === 'string' ? spec.method.toUpperCase() : '*'} ${String(spec.url)}`;
}

function compileMethod(method: unknown, fail: (reason: string) => never): string | undefined {
  if (method === undefined || method === null) return undefined;
  const upper = typeof method === 'string' ? method.toUpperCase() : '';
  if (!(ALIAS_METHODS as readonly string[]).includes(upper)) {
    fail(`"method" must be one of ${ALIAS_METHODS.join(', ')} (or left out for any method)`);
  }
  return upper;
}

function compileService(service: unknown, pkg: PackageSource, fail: (reason: string) => never): string {
  if (typeof service !== 'string' || service.trim() === '') return fail('"service" is required');
  const slash = service.indexOf('/');
  // Another package's service (`other/cls.method`) is resolved at call time: that package may be
  // deployed later. A service of this package must exist now.
  const own =
    slash < 0 ? service : service.slice(0, slash) === pkg.name ? service.slice(slash + 1) : undefined;
  if (own !== undefined && !pkg.services.includes(own)) {
    fail(`service "${service}" is not exported by the package`);
  }
  return service;
}

function compileRunAs(
  runAs: unknown,
  verifier: BearerVerifier | undefined,
  fail: (reason: string) => never,
): UserRef | undefined {
  if (runAs === undefined || runAs === null) return undefined;
  if (typeof runAs !== 'string' || runAs.trim() === '') return fail('"runAs" must be a user name');
  if (runAs === ANONYMOUS.username) return ANONYMOUS;
  if (!verifier) return fail(`"runAs: ${runAs}" needs the auth plugin, which is not loaded`);
  const user = verifier.user(runAs);
  if (!user) return fail(`"runAs" names the unknown user "${runAs}"`);
  return user;
}

function stringList(
  value: unknown,
  field: string,
  fail: (reason: string) => never,
  keepEmpty = false,
): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || v === '')) {
    return fail(`"${field}" must be a list of names`);
  }
  return value.length === 0 && !keepEmpty ? undefined : (value as string[]);
}

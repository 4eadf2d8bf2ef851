import { OAuthError } from './oauth-error.js';

/** A parsed form body: a repeated field arrives as an array (core/http/server.ts). */
export type FormBody = Record<string, string | string[] | undefined> | undefined;

/**
 * The named parameters of an OAuth request (RFC 6749 §3.1, §3.2): a parameter given twice is an
 * `invalid_request`; one sent without a value counts as omitted; any other parameter is ignored.
 */
export function readParams<K extends string>(
  body: FormBody,
  names: readonly K[],
): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const name of names) {
    const value = body?.[name];
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `parameter "${name}" is repeated`);
    if (value !== undefined && value !== '') out[name] = value;
  }
  return out;
}

export function required(value: string | undefined, name: string): string {
  if (value === undefined) throw new OAuthError('invalid_request', `parameter "${name}" is missing`);
  return value;
}

const field = { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] } as const;

/**
 * A body schema for form parameters that keeps a repeated one as an array (a plain `string`
 * type would make ajv's array coercion fail or collapse it) so the handler can name it.
 */
export function formSchema(names: readonly string[], description: Record<string, string>) {
  return {
    type: 'object',
    properties: Object.fromEntries(names.map((n) => [n, { ...field, description: description[n] ?? '' }])),
  } as const;
}

export const oauthErrorSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  required: ['error'],
} as const;

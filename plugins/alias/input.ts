import { AliasBodyNotObjectError } from './errors.js';

/**
 * The input of an alias call (CONTRACT §3): query parameters (a repeated one is an array), then
 * the fields of a JSON or form body, then path variables; a later source wins a name clash, so a
 * path variable cannot be overridden by the query or the body. `parameters`, when the alias gives
 * it, keeps only the inputs it names.
 */
export function mergeInput(
  pathParams: Record<string, string>,
  query: unknown,
  body: unknown,
  parameters: ReadonlySet<string> | undefined,
): Record<string, unknown> {
  // A null-prototype object: a field named `__proto__` is just a field.
  const input: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  copyFields(input, query, parameters);
  if (body !== undefined) {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      const what = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
      throw new AliasBodyNotObjectError(
        `The request body must be a JSON object (its fields are the input), not ${what}`,
      );
    }
    copyFields(input, body, parameters);
  }
  copyFields(input, pathParams, parameters);
  return input;
}

function copyFields(
  target: Record<string, unknown>,
  source: unknown,
  only: ReadonlySet<string> | undefined,
): void {
  if (source === undefined || source === null || typeof source !== 'object') return;
  for (const key of Object.keys(source)) {
    if (only && !only.has(key)) continue;
    const value = (source as Record<string, unknown>)[key];
    if (value !== undefined) target[key] = value;
  }
}

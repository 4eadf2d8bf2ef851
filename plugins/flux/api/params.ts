import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../../../core/errors.js';

/**
 * Tags arrive as repeated parameters (`tag=a&tag=b`), comma-separated values (`tag=a,b`) or
 * both; a tag therefore never holds a comma. Blanks are dropped, duplicates kept once, order kept.
 */
export function splitTags(values: readonly string[] | undefined): string[] {
  if (!values) return [];
  const tags = new Set<string>();
  for (const value of values) {
    for (const part of value.split(',')) {
      const tag = part.trim();
      if (tag.length > 0) tags.add(tag);
    }
  }
  return [...tags];
}

/** Tags that must not be empty once split (the tag operations): a 400 naming the parameter. */
export function requireTags(values: readonly string[] | undefined, field = 'tag'): string[] {
  const tags = splitTags(values);
  if (tags.length === 0) throw new ValidationError(`querystring parameter "${field}" is required`);
  return tags;
}

/** The `Idempotency-Key` header, validated by the route's header schema. */
export function idempotencyKey(request: FastifyRequest): string | undefined {
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' && key.length > 0 ? key : undefined;
}

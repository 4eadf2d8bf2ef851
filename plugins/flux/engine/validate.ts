/** Checks of engine inputs that do not come through a route schema (service calls, direct use). */
import { ValidationError } from '../../../core/errors.js';
import { EventInvalidError } from '../errors.js';
import type { EventRequest } from './types.js';

const MAX_TAG_LENGTH = 256;

export function checkTags(tags: unknown): void {
  if (tags === undefined) return;
  if (!Array.isArray(tags)) throw new ValidationError('tags must be a list of strings');
  for (const t of tags) {
    if (typeof t !== 'string' || t.length === 0 || t.length > MAX_TAG_LENGTH) {
      throw new ValidationError(
        `tag ${JSON.stringify(t)} must be a non-empty string of at most ${MAX_TAG_LENGTH} characters`,
      );
    }
  }
}

export function checkEvent(request: EventRequest): void {
  if (typeof request.event !== 'string' || request.event.length === 0) {
    throw new EventInvalidError('event must be a non-empty string');
  }
  if (request.event.startsWith('$')) {
    throw new EventInvalidError(`event "${request.event}" is reserved: names starting with $ are not sent`);
  }
  if (
    request.input !== undefined &&
    (request.input === null || typeof request.input !== 'object' || Array.isArray(request.input))
  ) {
    throw new EventInvalidError('event input must be an object');
  }
  if (
    request.contextId !== undefined &&
    !(Number.isSafeInteger(request.contextId) && request.contextId > 0)
  ) {
    throw new EventInvalidError('contextId must be a positive integer');
  }
  checkTags(request.tags);
}

/** The argument of `ctx.flux.sendEvent({event, input, tags, contextId})` from a service. */
export function parseSendEventArgs(args: unknown): Omit<EventRequest, 'user'> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw new EventInvalidError('ctx.flux.sendEvent takes {event, input, tags, contextId}');
  }
  const a = args as Record<string, unknown>;
  const request = {
    event: a.event as string,
    ...(a.input !== undefined ? { input: a.input as Record<string, unknown> } : {}),
    ...(a.tags !== undefined ? { tags: a.tags as string[] } : {}),
    ...(a.contextId !== undefined && a.contextId !== null ? { contextId: Number(a.contextId) } : {}),
  };
  checkEvent(request);
  return request;
}

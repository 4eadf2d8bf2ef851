import { defineError } from '../../core/errors.js';

/** Errors of the tracker plugin (docs/errors.md, section "Tracker"). */

/** `GET /tracker-api/document`: no document with that internalId (never stored, or swept). */
export const TrackerDocumentNotFoundError = defineError(
  'JCT_TRACKER_DOCUMENT_NOT_FOUND',
  404,
  'No tracker document with that internalId',
);

/** The tracker API needs an administrator's bearer token, and no auth plugin is loaded to check one. */
export const TrackerAuthUnavailableError = defineError(
  'JCT_TRACKER_AUTH_UNAVAILABLE',
  503,
  'The tracker API needs the auth plugin, which is not loaded',
);

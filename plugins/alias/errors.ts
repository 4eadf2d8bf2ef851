import { defineError } from '../../core/errors.js';

/**
 * Errors of the alias plugin (docs/errors.md, section "Alias"). An unknown URL under `/api` and a
 * known URL with the wrong method answer the core's `JCT_NOT_FOUND` and `JCT_METHOD_NOT_ALLOWED`.
 */

/** The JSON body of an alias call is not an object (its fields are the service's input). */
export const AliasBodyNotObjectError = defineError(
  'JCT_ALIAS_BODY_NOT_OBJECT',
  400,
  'The request body must be a JSON object',
);

/** A package's alias is invalid (a deployment error: the package version is not deployed). */
export const AliasInvalidError = defineError('JCT_ALIAS_INVALID', 500, 'The alias is invalid');

/** Two aliases with the same URL pattern and an overlapping method (a deployment error). */
export const AliasConflictError = defineError('JCT_ALIAS_CONFLICT', 500, 'Two aliases serve the same URL');

/**
 * A service call failed with an error that did not come through the sandbox (which answers
 * JCT_SERVICE_ERROR and the service's own status and code): 500 with its message, never its stack.
 */
export const AliasServiceFailedError = defineError('JCT_ALIAS_SERVICE_FAILED', 500, 'The service failed');

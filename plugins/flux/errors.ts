/**
 * Errors of the workflow engine and its REST API (docs/errors.md, section "Flux"). Codes are
 * stable: never changed, never reused.
 */
import { defineError } from '../../core/errors.js';

export const ContextNotFoundError = defineError(
  'JCT_FLUX_CONTEXT_NOT_FOUND',
  404,
  'No such workflow context',
);
export const WorkflowNotFoundError = defineError('JCT_FLUX_WORKFLOW_NOT_FOUND', 404, 'No such workflow');
export const PackageNotFoundError = defineError('JCT_FLUX_PACKAGE_NOT_FOUND', 404, 'No such package');
export const StateNotFoundError = defineError('JCT_FLUX_STATE_NOT_FOUND', 404, 'No such state');
export const ContextFinishedError = defineError(
  'JCT_FLUX_CONTEXT_FINISHED',
  409,
  'The workflow context has already finished',
);
export const DefinitionInvalidError = defineError(
  'JCT_FLUX_DEFINITION_INVALID',
  400,
  'A workflow definition is invalid',
);
export const EventInvalidError = defineError('JCT_FLUX_EVENT_INVALID', 400, 'The event is invalid');
/** A definition version a context runs on is missing from storage (should never happen). */
export const DefinitionMissingError = defineError(
  'JCT_FLUX_DEFINITION_MISSING',
  500,
  'The workflow definition of a context is missing',
);

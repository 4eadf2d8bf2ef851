import { defineError } from '../errors.js';

/** Errors of the service registry (docs/errors.md, "Services and sandbox"). */
export const ServiceNotFoundError = defineError('JCT_SERVICE_NOT_FOUND', 404, 'No such service');
export const PackageNotFoundError = defineError('JCT_PACKAGE_NOT_FOUND', 404, 'No such package');
export const HostFunctionUnavailableError = defineError(
  'JCT_HOST_FUNCTION_UNAVAILABLE',
  501,
  'This host function is not available on this server',
);

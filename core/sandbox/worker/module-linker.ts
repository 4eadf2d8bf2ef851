import { posix } from 'node:path';
import { PackageInvalidError } from '../errors.js';

/**
 * Resolves an import between modules of one package. Only relative specifiers (`./util.js`,
 * `../x/y.js`) that stay inside the package's `code/` folder are allowed: a bare name, a `node:`
 * builtin, a URL or a path that escapes the package gives service code nothing of the host.
 */
export function resolveImport(from: string, specifier: string, modules: ReadonlySet<string>): string {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) {
    throw new PackageInvalidError(
      `module ${from} imports '${specifier}': only relative imports of the package's own modules are allowed`,
    );
  }
  const resolved = posix.normalize(posix.join(posix.dirname(from), specifier));
  if (resolved.startsWith('../') || resolved === '..' || posix.isAbsolute(resolved)) {
    throw new PackageInvalidError(`module ${from} imports '${specifier}', which is outside the package`);
  }
  if (modules.has(resolved)) return resolved;
  if (modules.has(`${resolved}.js`)) return `${resolved}.js`;
  throw new PackageInvalidError(
    `module ${from} imports '${specifier}', which is not a module of the package`,
  );
}

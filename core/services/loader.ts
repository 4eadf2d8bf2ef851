/**
 * Turns a package folder read from disk into a loaded package version: the manifest validated,
 * the modules under `code/` compiled by the sandbox (which lists their exported functions), the
 * services named, the workflows listed. Nothing here deploys anything; every problem found is
 * returned, each naming the file.
 */
import type { ModuleExports, PackageCode, Sandbox } from '../sandbox/types.js';
import { NAME_SEGMENT, parseManifest } from './manifest.js';
import type { PackageFolder } from './reader.js';
import type { AliasSpec } from './types.js';

export const MANIFEST_FILE = 'package.yaml';
const CODE_DIR = 'code/';
const FLUX_DIR = 'flux/';
const FLUX_SUFFIX = '.flux.yaml';

/** Where a service lives: a module path under `code/` and its exported function. */
export interface ServiceTarget {
  module: string;
  fn: string;
}

export interface LoadedPackage {
  name: string;
  version: string;
  deployId: number;
  /** `<name>@<deployId>`: the sandbox caches compiled code under it. */
  key: string;
  dir: string;
  fingerprint: string;
  code: PackageCode;
  /** `<className>.<methodName>` → where it lives. */
  services: Map<string, ServiceTarget>;
  aliases: AliasSpec[];
  /** fluxNames of `flux/**\/*.flux.yaml`. */
  workflows: string[];
  files: Map<string, Buffer>;
}

export type LoadResult =
  | { pkg: LoadedPackage; errors: []; version: string }
  | { pkg: undefined; errors: string[]; version: string | undefined };

/**
 * Loads `folder` as version `deployId`. The sandbox compiles the code under the version's key;
 * the caller forgets that key when the version does not go live.
 */
export async function loadPackage(
  folder: PackageFolder,
  deployId: number,
  sandbox: Sandbox,
): Promise<LoadResult> {
  const label = folder.folder;
  const manifestText = folder.files.get(MANIFEST_FILE);
  if (manifestText === undefined) {
    return { pkg: undefined, version: undefined, errors: [`${label}/${MANIFEST_FILE}: missing`] };
  }
  const parsed = parseManifest(manifestText.toString('utf8'), `${label}/${MANIFEST_FILE}`);
  if (!parsed.manifest) return { pkg: undefined, version: undefined, errors: parsed.errors };
  const manifest = parsed.manifest;
  const errors: string[] = [];
  if (manifest.name !== folder.folder) {
    errors.push(
      `${label}/${MANIFEST_FILE}: name: "${manifest.name}" must be the folder's name ("${folder.folder}")`,
    );
  }

  const modules: { path: string; source: string }[] = [];
  const classNames = new Map<string, string>();
  const workflows: string[] = [];
  for (const [path, content] of folder.files) {
    if (path.startsWith(CODE_DIR) && path.endsWith('.js')) {
      const modulePath = path.slice(CODE_DIR.length);
      const className = dottedName(modulePath, '.js');
      if (className === undefined) {
        errors.push(`${label}/${path}: ${segmentRule('module')}`);
        continue;
      }
      modules.push({ path: modulePath, source: content.toString('utf8') });
      classNames.set(modulePath, className);
    } else if (path.startsWith(FLUX_DIR) && path.endsWith(FLUX_SUFFIX)) {
      const fluxName = dottedName(path.slice(FLUX_DIR.length), FLUX_SUFFIX);
      if (fluxName === undefined) errors.push(`${label}/${path}: ${segmentRule('workflow')}`);
      else workflows.push(fluxName);
    }
  }
  if (errors.length > 0) return { pkg: undefined, version: manifest.version, errors };

  const key = `${manifest.name}@${deployId}`;
  const code: PackageCode = { key, name: manifest.name, modules };
  let exports: ModuleExports[];
  try {
    exports = modules.length === 0 ? [] : await sandbox.inspect(code);
  } catch (err) {
    return { pkg: undefined, version: manifest.version, errors: [`${label}: ${(err as Error).message}`] };
  }

  const services = new Map<string, ServiceTarget>();
  for (const m of exports) {
    const className = classNames.get(m.path);
    if (className === undefined) continue;
    // The default export has no name a caller could use: it is not a service.
    for (const fn of m.functions)
      if (fn !== 'default') services.set(`${className}.${fn}`, { module: m.path, fn });
  }
  manifest.aliases.forEach((alias, i) => {
    if (alias.service.includes('/') || services.has(alias.service)) return;
    const cut = alias.service.lastIndexOf('.');
    const modulePath = `${alias.service.slice(0, cut).replace(/\./g, '/')}.js`;
    const reason = classNames.has(modulePath)
      ? `module code/${modulePath} exports no function "${alias.service.slice(cut + 1)}"`
      : `no module code/${modulePath}`;
    errors.push(`${label}/${MANIFEST_FILE}: aliases[${i}].service: ${alias.service}: ${reason}`);
  });
  if (errors.length > 0) return { pkg: undefined, version: manifest.version, errors };

  return {
    version: manifest.version,
    errors: [],
    pkg: {
      name: manifest.name,
      version: manifest.version,
      deployId,
      key,
      dir: folder.dir,
      fingerprint: folder.fingerprint,
      code,
      services,
      aliases: manifest.aliases,
      workflows: workflows.sort(),
      files: folder.files,
    },
  };
}

/** `approval/Checks.js` → `approval.Checks`; undefined when a segment is not an identifier. */
function dottedName(path: string, suffix: string): string | undefined {
  const segments = path.slice(0, -suffix.length).split('/');
  return segments.every((s) => NAME_SEGMENT.test(s)) ? segments.join('.') : undefined;
}

function segmentRule(what: 'module' | 'workflow'): string {
  return `every folder and the ${what} file name must be an identifier (letters, digits, _ or $, not starting with a digit)`;
}

/**
 * `package.yaml`: its JSON schema, and parsing it into a validated manifest with the alias
 * defaults applied (docs/packages.md). Every problem is reported, each naming the file and key.
 */
import { Ajv, type ErrorObject } from 'ajv';
import { load as loadYaml, type YAMLException } from 'js-yaml';
import type { AliasSpec } from './types.js';

/** A package name: used in URLs (`/flux-api/{package}/...`) and in `<package>/<service>` names. */
export const PACKAGE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** One segment of a class name (a folder or module file name under `code/`) or a method name. */
export const NAME_SEGMENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const identifier = '[A-Za-z_$][A-Za-z0-9_$]*';
const stringList = { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true } as const;

export const aliasSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['url', 'service'],
  properties: {
    // Starts with `/`; `{name}` is a path variable; no whitespace, `?` or `#`.
    url: { type: 'string', pattern: `^/(?:[^{}\\s?#]|\\{${identifier}\\})*$` },
    // `[<package>/]<class>.<method>`, the class possibly dotted.
    service: {
      type: 'string',
      pattern: `^(?:[A-Za-z][A-Za-z0-9_-]{0,63}/)?${identifier}(?:\\.${identifier})+$`,
    },
    method: { enum: [...HTTP_METHODS] },
    parameters: stringList,
    secured: { type: 'boolean', default: false },
    users: stringList,
    groups: stringList,
    // No default: unset means Anonymous, except on a secured alias, which then runs as its caller.
    runAs: { type: 'string', minLength: 1 },
    logToTracker: { type: 'boolean', default: false },
    documentType: { type: 'string', minLength: 1 },
  },
} as const;

export const manifestSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'version'],
  properties: {
    name: { type: 'string', pattern: PACKAGE_NAME.source },
    version: { type: 'string', minLength: 1 },
    aliases: { type: 'array', items: aliasSchema, default: [] },
  },
} as const;

export interface Manifest {
  name: string;
  version: string;
  aliases: AliasSpec[];
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const validate = ajv.compile(manifestSchema);

/**
 * Parses and validates the text of a package.yaml. `label` names the file in messages. Returns
 * the manifest, or every problem found.
 */
export function parseManifest(
  text: string,
  label: string,
): { manifest: Manifest; errors: [] } | { manifest: undefined; errors: string[] } {
  let raw: unknown;
  try {
    raw = loadYaml(text, { filename: label });
  } catch (err) {
    const e = err as YAMLException;
    const where = e.mark ? ` at line ${e.mark.line + 1}, column ${e.mark.column + 1}` : '';
    return { manifest: undefined, errors: [`${label}: YAML syntax error${where}: ${e.reason}`] };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { manifest: undefined, errors: [`${label}: the top level must be a mapping of keys`] };
  }
  if (!validate(raw)) {
    return { manifest: undefined, errors: (validate.errors ?? []).map((e) => `${label}: ${describe(e)}`) };
  }
  const manifest = raw as Manifest;
  const errors: string[] = [];
  const routes: { shape: string; method: string | undefined; index: number }[] = [];
  manifest.aliases.forEach((alias, i) => {
    // `/a/{id}` and `/a/{x}` match the same requests; an alias without a method matches them all.
    const shape = alias.url.replace(/\{[^}]+\}/g, '{}');
    const clash = routes.find(
      (r) =>
        r.shape === shape &&
        (r.method === undefined || alias.method === undefined || r.method === alias.method),
    );
    if (clash) {
      errors.push(
        `${label}: aliases[${i}]: ${alias.method ?? 'any method'} ${alias.url} answers the same requests as aliases[${clash.index}]`,
      );
    }
    routes.push({ shape, method: alias.method, index: i });
    const seen = new Set<string>();
    for (const [, variable] of alias.url.matchAll(/\{([^}]+)\}/g)) {
      if (seen.has(variable!))
        errors.push(`${label}: aliases[${i}].url: variable {${variable}} appears twice`);
      seen.add(variable!);
    }
  });
  return errors.length > 0 ? { manifest: undefined, errors } : { manifest, errors: [] };
}

function describe(e: ErrorObject): string {
  const path = pointerToPath(e.instancePath);
  const at = path || '(top level)';
  switch (e.keyword) {
    case 'additionalProperties':
      return `${join(path, String(e.params.additionalProperty))}: unknown key`;
    case 'required':
      return `${join(path, String(e.params.missingProperty))}: missing required key`;
    case 'type':
      return path === 'version'
        ? `version: must be a string (quote it: version: "1.0")`
        : `${at}: must be ${e.params.type === 'array' ? 'a list' : `a ${e.params.type}`}`;
    case 'enum':
      return `${at}: must be one of ${(e.params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `${at}: ${patternHint(path)}`;
    case 'uniqueItems':
      return `${at}: lists a value twice`;
    default:
      return `${at}: ${e.message ?? 'is invalid'}`;
  }
}

function patternHint(path: string): string {
  if (path === 'name') return 'must start with a letter and hold only letters, digits, _ and - (at most 64)';
  if (path.endsWith('.url')) return 'must start with / and use {name} for path variables (no spaces, ? or #)';
  if (path.endsWith('.service'))
    return 'must be <className>.<methodName>, or <package>/<className>.<methodName>';
  return 'is malformed';
}

function pointerToPath(pointer: string): string {
  let out = '';
  for (const seg of pointer.split('/').slice(1)) {
    const s = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(s) ? `[${s}]` : out ? `.${s}` : s;
  }
  return out;
}

function join(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

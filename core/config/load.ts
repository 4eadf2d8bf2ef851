import { existsSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { load as loadYaml, type YAMLException } from 'js-yaml';
import { configSchema, type JunctionConfig } from './schema.js';

/** The largest token lifetimes Junction issues, whatever the configuration asks for. */
export const MAX_ACCESS_TOKEN_TTL = 3600;
export const MAX_REFRESH_TOKEN_TTL = 43200;

/** Overrides given on the command line; relative paths are resolved against the working directory. */
export interface ConfigFlags {
  port?: number;
  host?: string;
  dataDir?: string;
  servicesDir?: string;
}

export interface LoadOptions {
  /** The config file; when unset, the embedded defaults with paths relative to `cwd`. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  flags?: ConfigFlags;
  cwd?: string;
  /** Check that servicesDir exists (true unless a caller only wants the values). */
  checkPaths?: boolean;
}

export interface LoadedConfig {
  config: JunctionConfig;
  /** Absolute path of the file read, if any. */
  file: string | undefined;
  /** The folder relative paths in the file are resolved against. */
  baseDir: string;
  /** Things worth a log line that are not errors (e.g. a capped token lifetime). */
  warnings: string[];
}

/** Thrown with every problem found, one line each. */
export class ConfigLoadError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigLoadError';
  }
}

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false });
const validate = ajv.compile(configSchema);

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd();
  const file = options.file === undefined ? undefined : resolve(cwd, options.file);
  const label = file ?? 'configuration';
  const baseDir = file ? dirname(file) : cwd;

  let raw: unknown = {};
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigLoadError([`${label}: cannot read the file (${(err as NodeJS.ErrnoException).code})`]);
    }
    try {
      // A file of comments only is an empty configuration (js-yaml rejects an empty document).
      raw = /^[ \t]*[^#\s]/m.test(text) ? (loadYaml(text, { filename: file }) ?? {}) : {};
    } catch (err) {
      const e = err as YAMLException;
      const where = e.mark ? ` at line ${e.mark.line + 1}, column ${e.mark.column + 1}` : '';
      throw new ConfigLoadError([`${label}: YAML syntax error${where}: ${e.reason}`]);
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new ConfigLoadError([`${label}: the top level must be a mapping of keys`]);
    }
  }

  const problems: string[] = [];
  const fromEnv = new Map<string, string>();
  applyEnv(raw as Record<string, unknown>, options.env ?? process.env, fromEnv, problems);
  applyFlags(raw as Record<string, unknown>, options.flags ?? {}, cwd);

  if (!validate(raw)) {
    for (const e of validate.errors ?? []) problems.push(`${label}: ${describe(e, fromEnv)}`);
  }
  if (problems.length > 0) throw new ConfigLoadError(problems);

  const config = raw as JunctionConfig;
  const warnings: string[] = [];
  checkSemantics(config, label, problems, warnings);
  config.sandbox.threads ??= availableParallelism();
  config.dataDir = resolve(baseDir, config.dataDir);
  config.servicesDir = resolve(baseDir, config.servicesDir);
  for (const p of config.plugins) if (p.path) p.path = resolve(baseDir, p.path);

  if (options.checkPaths !== false) {
    if (!existsSync(config.servicesDir) || !statSync(config.servicesDir).isDirectory()) {
      problems.push(`${label}: servicesDir: folder ${config.servicesDir} does not exist`);
    }
  }
  if (problems.length > 0) throw new ConfigLoadError(problems);
  return { config, file, baseDir, warnings };
}

function checkSemantics(config: JunctionConfig, label: string, problems: string[], warnings: string[]): void {
  const names = new Set<string>();
  config.plugins.forEach((p, i) => {
    if ((p.name === undefined) === (p.path === undefined)) {
      problems.push(
        `${label}: plugins[${i}]: give exactly one of "name" (a built-in) or "path" (a custom plugin)`,
      );
    }
    if (p.name !== undefined) {
      if (names.has(p.name))
        problems.push(`${label}: plugins[${i}].name: plugin "${p.name}" is listed twice`);
      names.add(p.name);
    }
  });
  const users = new Set<string>();
  config.users.forEach((u, i) => {
    if (users.has(u.username))
      problems.push(`${label}: users[${i}].username: "${u.username}" is listed twice`);
    users.add(u.username);
    if (!u.password.startsWith('scrypt$')) {
      problems.push(`${label}: users[${i}].password: must be a hash printed by \`junction hash-password\``);
    }
  });
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: config.server.timezone });
  } catch {
    problems.push(`${label}: server.timezone: unknown time zone "${config.server.timezone}"`);
  }
  if (config.oauth['access-token-ttl'] > MAX_ACCESS_TOKEN_TTL) {
    warnings.push(`oauth.access-token-ttl capped at ${MAX_ACCESS_TOKEN_TTL} seconds`);
    config.oauth['access-token-ttl'] = MAX_ACCESS_TOKEN_TTL;
  }
  if (config.oauth['refresh-token-ttl'] > MAX_REFRESH_TOKEN_TTL) {
    warnings.push(`oauth.refresh-token-ttl capped at ${MAX_REFRESH_TOKEN_TTL} seconds`);
    config.oauth['refresh-token-ttl'] = MAX_REFRESH_TOKEN_TTL;
  }
}

function describe(e: ErrorObject, fromEnv: Map<string, string>): string {
  const path = pointerToPath(e.instancePath);
  const at = (key: string) => (key ? key : '(top level)');
  const source = (key: string) => {
    const variable = fromEnv.get(key);
    return variable ? ` (set by ${variable})` : '';
  };
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = joinPath(path, String(e.params.additionalProperty));
      return `${key}: unknown key`;
    }
    case 'required':
      return `${joinPath(path, String(e.params.missingProperty))}: missing required key`;
    case 'type':
      return `${at(path)}: must be ${e.params.type === 'integer' ? 'an integer' : `a ${e.params.type}`}${source(path)}`;
    case 'enum':
      return `${at(path)}: must be one of ${(e.params.allowedValues as unknown[]).join(', ')}${source(path)}`;
    default:
      return `${at(path)}: ${e.message ?? 'is invalid'}${source(path)}`;
  }
}

function pointerToPath(pointer: string): string {
  if (!pointer) return '';
  let out = '';
  for (const seg of pointer.slice(1).split('/')) {
    const s = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(s) ? `[${s}]` : out ? `.${s}` : s;
  }
  return out;
}

function joinPath(parent: string, key: string): string {
  return parent ? `${parent}.${key}` : key;
}

interface Leaf {
  path: string[];
  type: string | undefined;
}

/** Every settable key of the schema (objects are descended into; arrays are set whole). */
function leaves(schema: Record<string, any>, prefix: string[] = []): Leaf[] {
  if (schema.type === 'object' && schema.properties) {
    return Object.entries(schema.properties as Record<string, any>).flatMap(([k, s]) =>
      leaves(s, [...prefix, k]),
    );
  }
  return [{ path: prefix, type: schema.type ?? (schema.enum ? 'string' : undefined) }];
}

const LEAVES = leaves(configSchema as unknown as Record<string, any>);

/** `server.bodyLimit` → `SERVER_BODY_LIMIT`; `oauth.client-id` → `OAUTH_CLIENT_ID`. */
function envName(path: string[]): string {
  return path
    .map((p) =>
      p
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .replace(/-/g, '_')
        .toUpperCase(),
    )
    .join('_');
}

const ENV_INDEX = new Map<string, Leaf>();
for (const leaf of LEAVES) {
  ENV_INDEX.set(envName(leaf.path), leaf);
  // Also accept the camel-case key run together: JUNCTION_SANDBOX_MEMORYLIMITMB.
  ENV_INDEX.set(leaf.path.map((p) => p.replace(/-/g, '_').toUpperCase()).join('_'), leaf);
}

function applyEnv(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  fromEnv: Map<string, string>,
  problems: string[],
): void {
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('JUNCTION_') || value === undefined) continue;
    const leaf = ENV_INDEX.get(name.slice('JUNCTION_'.length));
    if (!leaf) {
      problems.push(`${name}: no configuration key of that name`);
      continue;
    }
    let parsed: unknown = value;
    if (leaf.type === 'integer' || leaf.type === 'number') {
      parsed = value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    } else if (leaf.type === 'boolean') {
      parsed = value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value;
    } else if (leaf.type === 'array' || leaf.type === 'object') {
      try {
        parsed = loadYaml(value);
      } catch {
        problems.push(`${name}: not valid YAML or JSON`);
        continue;
      }
    }
    setPath(raw, leaf.path, parsed);
    fromEnv.set(pointerToPath('/' + leaf.path.join('/')), name);
  }
}

function applyFlags(raw: Record<string, unknown>, flags: ConfigFlags, cwd: string): void {
  if (flags.port !== undefined) setPath(raw, ['server', 'port'], flags.port);
  if (flags.host !== undefined) setPath(raw, ['server', 'host'], flags.host);
  if (flags.dataDir !== undefined) setPath(raw, ['dataDir'], resolve(cwd, flags.dataDir));
  if (flags.servicesDir !== undefined) setPath(raw, ['servicesDir'], resolve(cwd, flags.servicesDir));
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]!] = value;
}

/** The defaults of every key, as a fully populated config (paths left relative). */
export function defaultConfig(): JunctionConfig {
  const raw: Record<string, unknown> = {};
  validate(raw);
  return raw as unknown as JunctionConfig;
}

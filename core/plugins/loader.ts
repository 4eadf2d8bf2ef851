import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PluginEntry } from '../config/schema.js';
import { PluginError } from '../errors.js';
import type { JunctionPlugin } from './types.js';

export const BUILTIN_PLUGINS = ['auth', 'alias', 'flux', 'tracker'] as const;

const builtinRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'plugins');

export interface ResolvedPlugin {
  plugin: JunctionPlugin<any>;
  options: Record<string, unknown>;
  /** `auth` for a built-in, the file path for a custom plugin. */
  source: string;
}

/** Imports every plugin listed in the configuration and checks names and `dependsOn`. */
export async function resolvePlugins(entries: PluginEntry[]): Promise<ResolvedPlugin[]> {
  const resolved: ResolvedPlugin[] = [];
  for (const [i, entry] of entries.entries()) {
    let url: string;
    let source: string;
    if (entry.name !== undefined) {
      if (!(BUILTIN_PLUGINS as readonly string[]).includes(entry.name)) {
        throw new PluginError(
          `plugins[${i}]: no built-in plugin named "${entry.name}" (built-ins: ${BUILTIN_PLUGINS.join(', ')}; a custom plugin is given by "path")`,
        );
      }
      url = pathToFileURL(join(builtinRoot, entry.name, 'index.js')).href;
      source = entry.name;
    } else {
      const path = entry.path!;
      if (!existsSync(path)) throw new PluginError(`plugins[${i}]: plugin file ${path} does not exist`);
      url = pathToFileURL(path).href;
      source = path;
    }
    let mod: { default?: unknown };
    try {
      mod = (await import(url)) as { default?: unknown };
    } catch (err) {
      throw new PluginError(`plugins[${i}]: cannot load plugin ${source}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    resolved.push({ plugin: checkShape(mod.default, source), options: entry.options ?? {}, source });
  }
  checkOrder(resolved.map((r) => r.plugin));
  return resolved;
}

function checkShape(value: unknown, source: string): JunctionPlugin {
  const p = value as Partial<JunctionPlugin> | undefined;
  const problem = (what: string) => new PluginError(`plugin ${source}: ${what}`);
  if (typeof p !== 'object' || p === null)
    throw problem('the module has no default export of a plugin object');
  if (typeof p.name !== 'string' || p.name.length === 0) throw problem('"name" must be a non-empty string');
  if (typeof p.register !== 'function') throw problem('"register" must be a function');
  if (p.start !== undefined && typeof p.start !== 'function') throw problem('"start" must be a function');
  if (p.stop !== undefined && typeof p.stop !== 'function') throw problem('"stop" must be a function');
  if (
    p.dependsOn !== undefined &&
    (!Array.isArray(p.dependsOn) || p.dependsOn.some((d) => typeof d !== 'string'))
  ) {
    throw problem('"dependsOn" must be an array of plugin names');
  }
  return p as JunctionPlugin;
}

/** Names are unique and every dependency is registered before its dependant. */
export function checkOrder(plugins: JunctionPlugin<any>[]): void {
  const seen = new Set<string>();
  const all = new Set(plugins.map((p) => p.name));
  for (const p of plugins) {
    if (seen.has(p.name)) throw new PluginError(`plugin "${p.name}" is listed twice`);
    for (const dep of p.dependsOn ?? []) {
      if (!all.has(dep)) {
        throw new PluginError(`plugin "${p.name}" depends on "${dep}", which is not in the plugins list`);
      }
      if (!seen.has(dep)) {
        throw new PluginError(`plugin "${p.name}" depends on "${dep}", which must be listed before it`);
      }
    }
    seen.add(p.name);
  }
}

/** Runs `fn` but fails with a message naming the plugin if it takes longer than `ms`. */
export async function withTimeout<T>(what: string, ms: number, fn: () => T | Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PluginError(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(fn), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

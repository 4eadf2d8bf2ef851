/**
 * Running the plugins' deploy hooks for a package version: every `prepare` first (any throw fails
 * the deploy and nothing is committed), then every `commit`.
 */
import { withTimeout } from '../plugins/loader.js';
import type { LoadedPackage } from './loader.js';
import type { DeployHook, PackageSource } from './types.js';

/** How long one hook's `prepare` may take before the deploy fails. */
export const PREPARE_TIMEOUT_MS = 30_000;

export interface PreparedHook {
  hook: DeployHook;
  source: PackageSource;
  prepared: unknown;
}

/** The view of a package a hook gets: the files it asked for, as text. */
export function sourceFor(pkg: LoadedPackage, hook: DeployHook): PackageSource {
  const files: { path: string; text: string }[] = [];
  if (hook.files) {
    const dir = hook.files.dir.replace(/^\/+|\/+$/g, '');
    const prefix = dir ? `${dir}/` : '';
    for (const [path, content] of pkg.files) {
      if (path.startsWith(prefix) && path.endsWith(hook.files.suffix)) {
        files.push({ path, text: content.toString('utf8') });
      }
    }
    files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  return {
    name: pkg.name,
    version: pkg.version,
    dir: pkg.dir,
    deployId: pkg.deployId,
    aliases: pkg.aliases.map((a) => ({ ...a })),
    services: [...pkg.services.keys()].sort(),
    files,
  };
}

/** Calls `prepare` of every hook in order; rejects with `<hook>: <message>` at the first throw. */
export async function prepareHooks(
  hooks: readonly DeployHook[],
  pkg: LoadedPackage,
): Promise<PreparedHook[]> {
  const out: PreparedHook[] = [];
  for (const hook of hooks) {
    const source = sourceFor(pkg, hook);
    try {
      // A hook that never settles would hold every later deploy in the queue.
      const prepared = await withTimeout(`prepare`, PREPARE_TIMEOUT_MS, () => hook.prepare(source));
      out.push({ hook, source, prepared });
    } catch (err) {
      throw new Error(`${hook.name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
  return out;
}

/**
 * Commits every prepared hook. A commit is not supposed to fail (the checks belong in `prepare`);
 * one that does is reported and the others still commit, so that no hook is left half-way.
 */
export function commitHooks(prepared: readonly PreparedHook[]): string[] {
  const problems: string[] = [];
  for (const p of prepared) {
    try {
      p.hook.commit(p.source, p.prepared);
    } catch (err) {
      problems.push(`${p.hook.name}: commit failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return problems;
}

/**
 * The deployed workflow definitions. A DeployHook validates every `flux/**\/*.flux.yaml` of a
 * package at deploy time and stores each definition version in LevelDB (keyed by content hash), so a
 * context keeps running on the version it started with across redeploys and restarts. The live
 * versions (what new contexts start on) are held in memory and rebuilt by each deploy.
 */
import { load } from 'js-yaml';
import type { DeployHook, PackageSource } from '../../../core/services/types.js';
import type { Store } from '../../../core/storage/types.js';
import { DefinitionInvalidError, DefinitionMissingError } from '../errors.js';
import { compileDefinition, fluxNameOf } from './compile.js';
import type { FluxDefinition } from './types.js';

interface StoredDefinition {
  packageName: string;
  file: string;
  doc: unknown;
}

/** Compiled versions kept in memory; older ones are reloaded from storage when needed. */
const VERSION_CACHE_SIZE = 1000;

export class DefinitionRegistry {
  private readonly live = new Map<string, Map<string, FluxDefinition>>();
  private byTrigger = new Map<string, FluxDefinition[]>();
  private readonly versions = new Map<string, FluxDefinition>();

  constructor(private readonly store: Store) {}

  /** The hook the engine adds to the service registry. */
  deployHook(): DeployHook<FluxDefinition[]> {
    return {
      name: 'flux',
      files: { dir: 'flux', suffix: '.flux.yaml' },
      prepare: (pkg) => this.prepare(pkg),
      commit: (pkg, definitions) => this.commit(pkg.name, definitions),
      remove: (name) => this.remove(name),
    };
  }

  /** Validates every definition of `pkg` and stores their versions; throws listing every problem. */
  async prepare(pkg: PackageSource): Promise<FluxDefinition[]> {
    const errors: string[] = [];
    const definitions: FluxDefinition[] = [];
    const docs = new Map<FluxDefinition, unknown>();
    for (const file of [...pkg.files].sort((a, b) => a.path.localeCompare(b.path))) {
      if (!file.path.startsWith('flux/') || !file.path.endsWith('.flux.yaml')) continue;
      let doc: unknown;
      try {
        doc = load(file.text);
      } catch (err) {
        errors.push(`${file.path}: invalid YAML: ${(err as Error).message.split('\n')[0]}`);
        continue;
      }
      const result = compileDefinition(pkg.name, file.path, doc, pkg.services);
      errors.push(...result.errors);
      if (result.definition) {
        definitions.push(result.definition);
        docs.set(result.definition, doc);
      }
    }
    if (errors.length > 0) {
      throw new DefinitionInvalidError(errors.join('; '));
    }
    // Stored before the version goes live so a context can never reference a missing version.
    const keys = definitions.map((d) => versionKey(d.packageName, d.fluxName, d.version));
    const existing = await this.store.getMany(keys);
    const ops = definitions
      .filter((_, i) => existing[i] === undefined)
      .map((d) => ({
        type: 'put' as const,
        key: versionKey(d.packageName, d.fluxName, d.version),
        value: { packageName: d.packageName, file: d.file, doc: docs.get(d) } satisfies StoredDefinition,
      }));
    if (ops.length > 0) await this.store.batch(ops);
    return definitions;
  }

  commit(packageName: string, definitions: FluxDefinition[]): void {
    this.live.set(packageName, new Map(definitions.map((d) => [d.fluxName, d])));
    for (const d of definitions) this.remember(d);
    this.rebuildTriggers();
  }

  remove(packageName: string): void {
    this.live.delete(packageName);
    this.rebuildTriggers();
  }

  hasPackage(packageName: string): boolean {
    return this.live.has(packageName);
  }

  /** The live version of a workflow. */
  get(packageName: string, fluxName: string): FluxDefinition | undefined {
    return this.live.get(packageName)?.get(fluxName);
  }

  /** The live workflow named `fluxName` in any package (package names in order). */
  find(fluxName: string): FluxDefinition | undefined {
    for (const name of [...this.live.keys()].sort()) {
      const d = this.live.get(name)!.get(fluxName);
      if (d) return d;
    }
    return undefined;
  }

  /** Live workflows whose `triggers` contain `event`. */
  triggeredBy(event: string): FluxDefinition[] {
    return this.byTrigger.get(event) ?? [];
  }

  /** A given version (a context's), from memory or storage. */
  async version(packageName: string, fluxName: string, version: string): Promise<FluxDefinition> {
    const key = versionKey(packageName, fluxName, version);
    const cached = this.versions.get(key);
    if (cached) return cached;
    const stored = await this.store.get<StoredDefinition>(key);
    if (!stored)
      throw new DefinitionMissingError(`definition ${packageName}/${fluxName} version ${version} is missing`);
    const { definition, errors } = compileDefinition(stored.packageName, stored.file, stored.doc);
    if (!definition || definition.version !== version || definition.fluxName !== fluxNameOf(stored.file)) {
      throw new DefinitionMissingError(`stored definition ${key} no longer compiles: ${errors.join('; ')}`);
    }
    this.remember(definition);
    return definition;
  }

  private remember(d: FluxDefinition): void {
    const key = versionKey(d.packageName, d.fluxName, d.version);
    this.versions.delete(key);
    this.versions.set(key, d);
    if (this.versions.size > VERSION_CACHE_SIZE) this.versions.delete(this.versions.keys().next().value!);
  }

  private rebuildTriggers(): void {
    const map = new Map<string, FluxDefinition[]>();
    for (const pkg of [...this.live.keys()].sort()) {
      for (const d of this.live.get(pkg)!.values()) {
        for (const t of new Set(d.triggers)) map.set(t, [...(map.get(t) ?? []), d]);
      }
    }
    this.byTrigger = map;
  }
}

function versionKey(packageName: string, fluxName: string, version: string): string {
  return `${encodeURIComponent(packageName)}/${encodeURIComponent(fluxName)}/${version}`;
}

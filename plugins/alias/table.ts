import type { Logger } from 'pino';
import type { DeployHook, PackageSource } from '../../core/services/types.js';
import type { BearerVerifier } from '../auth/types.js';
import { compileAliases, describeSpec, type CompiledAlias } from './compile.js';
import { AliasConflictError } from './errors.js';
import { AliasRouter, findConflict, type RouteEntry } from './router.js';

/**
 * The aliases of every deployed package, and the router built from them. It is the alias
 * plugin's deploy hook: `prepare` validates a package version's aliases and rejects a conflict
 * with another package; `commit` and `remove` rebuild the router and swap it in with one
 * assignment, so a request sees either the old set of aliases or the new one, never a mix.
 */
export class AliasTable implements DeployHook<CompiledAlias[]> {
  readonly name = 'alias';
  /** package.yaml, to tell a written `runAs` from the registry's default (compile.ts). */
  private readonly byPackage = new Map<string, CompiledAlias[]>();
  private current: AliasRouter<CompiledAlias> = new AliasRouter([]);

  constructor(
    private readonly verifier: () => BearerVerifier | undefined,
    private readonly logger: Logger,
    /** Called after every change (e.g. to warn about tracker logging without a tracker). */
    private readonly onChange: (aliases: CompiledAlias[]) => void = () => {},
    /**
     * True under `junction check`: nothing is committed there, so a package that passes is kept
     * as if it were, and a later package conflicting with it is reported.
     */
    private readonly checkOnly: () => boolean = () => false,
  ) {}

  get router(): AliasRouter<CompiledAlias> {
    return this.current;
  }

  /** Every alias being served, package by package. */
  aliases(): CompiledAlias[] {
    return [...this.byPackage.values()].flat();
  }

  prepare(pkg: PackageSource): CompiledAlias[] {
    const compiled = compileAliases(pkg, this.verifier());
    const mine: RouteEntry<CompiledAlias>[] = [];
    for (const alias of compiled) {
      const own = findConflict(mine, alias);
      if (own) {
        throw new AliasConflictError(
          `package "${pkg.name}": alias ${describeSpec(alias.spec)} conflicts with its own alias ` +
            `${describeSpec(own.target.spec)} (same URL, overlapping method)`,
        );
      }
      const other = findConflict(this.entries(pkg.name), alias);
      if (other) {
        throw new AliasConflictError(
          `alias ${describeSpec(alias.spec)} of package "${pkg.name}" conflicts with alias ` +
            `${describeSpec(other.target.spec)} of package "${other.target.packageName}" ` +
            `(same URL, overlapping method)`,
        );
      }
      mine.push(toEntry(alias));
    }
    if (this.checkOnly()) this.byPackage.set(pkg.name, compiled);
    return compiled;
  }

  commit(pkg: PackageSource, prepared: CompiledAlias[]): void {
    this.byPackage.set(pkg.name, prepared);
    this.rebuild();
    this.logger.debug({ package: pkg.name, aliases: prepared.length }, 'aliases deployed');
  }

  remove(packageName: string): void {
    if (!this.byPackage.delete(packageName)) return;
    this.rebuild();
    this.logger.debug({ package: packageName }, 'aliases removed');
  }

  private *entries(exceptPackage?: string): Iterable<RouteEntry<CompiledAlias>> {
    for (const [name, aliases] of this.byPackage) {
      if (name === exceptPackage) continue;
      for (const alias of aliases) yield toEntry(alias);
    }
  }

  private rebuild(): void {
    const entries = [...this.entries()];
    // Deploys of different packages are prepared one after the other, so a conflict cannot get
    // this far; should one, the router keeps the alias deployed first and says so.
    const kept: RouteEntry<CompiledAlias>[] = [];
    for (const entry of entries) {
      const clash = findConflict(kept, entry);
      if (clash) {
        this.logger.error(
          `alias ${describeSpec(entry.target.spec)} of package "${entry.target.packageName}" is not ` +
            `served: it conflicts with package "${clash.target.packageName}"`,
        );
        continue;
      }
      kept.push(entry);
    }
    this.current = new AliasRouter(kept);
    this.onChange(kept.map((e) => e.target));
  }
}

function toEntry(alias: CompiledAlias): RouteEntry<CompiledAlias> {
  return { pattern: alias.pattern, method: alias.method, target: alias };
}

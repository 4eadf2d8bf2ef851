import type { UrlPattern } from './pattern.js';

/**
 * Finds the alias for a request path and method. Built once per deploy and then only read, so a
 * deploy swaps in a new router atomically (`AliasTable`). Matching walks a segment trie: a static
 * segment is preferred over a path variable, and when the most specific matching pattern does not
 * accept the method, less specific ones are tried before answering 405.
 */

export interface RouteEntry<T> {
  pattern: UrlPattern;
  /** Upper case; undefined: any method. */
  method: string | undefined;
  target: T;
}

export type MatchResult<T> =
  | { kind: 'found'; target: T; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

interface Node<T> {
  statics: Map<string, Node<T>>;
  variable: Node<T> | undefined;
  /** Routes ending at this node, by method (`*` for any). */
  routes: Map<string, RouteEntry<T>>;
}

const ANY = '*';
const GET_LOOKUP = ['HEAD', 'GET'];

function newNode<T>(): Node<T> {
  return { statics: new Map(), variable: undefined, routes: new Map() };
}

export class AliasRouter<T> {
  private readonly root: Node<T> = newNode();
  readonly size: number;

  /** Entries must not conflict (`findConflict`); a later conflicting entry is ignored. */
  constructor(entries: Iterable<RouteEntry<T>>) {
    let size = 0;
    for (const entry of entries) {
      let node = this.root;
      for (const seg of entry.pattern.segments) {
        if (seg.kind === 'static') {
          let next = node.statics.get(seg.value);
          if (!next) node.statics.set(seg.value, (next = newNode()));
          node = next;
        } else {
          node = node.variable ??= newNode();
        }
      }
      const key = entry.method ?? ANY;
      if (!node.routes.has(key)) {
        node.routes.set(key, entry);
        size++;
      }
    }
    this.size = size;
  }

  /** `segments`: the decoded segments of the path below `/api`. */
  match(method: string, segments: readonly string[]): MatchResult<T> {
    const values: string[] = [];
    const allow = new Set<string>();
    const lookup = method === 'HEAD' ? GET_LOOKUP : [method];
    const found = this.walk(this.root, segments, 0, values, lookup, allow);
    if (found) {
      const params: Record<string, string> = {};
      let i = 0;
      for (const seg of found.pattern.segments) {
        if (seg.kind === 'variable') params[seg.name] = found.values[i++]!;
      }
      return { kind: 'found', target: found.entry.target, params };
    }
    if (allow.size > 0) {
      if (allow.has('GET')) allow.add('HEAD');
      return { kind: 'method-not-allowed', allow: [...allow].sort() };
    }
    return { kind: 'not-found' };
  }

  private walk(
    node: Node<T>,
    segments: readonly string[],
    depth: number,
    values: string[],
    lookup: string[],
    allow: Set<string>,
  ): { entry: RouteEntry<T>; pattern: UrlPattern; values: string[] } | undefined {
    if (depth === segments.length) {
      if (node.routes.size === 0) return undefined;
      for (const m of lookup) {
        const entry = node.routes.get(m);
        if (entry) return { entry, pattern: entry.pattern, values: [...values] };
      }
      const any = node.routes.get(ANY);
      if (any) return { entry: any, pattern: any.pattern, values: [...values] };
      for (const m of node.routes.keys()) allow.add(m);
      return undefined;
    }
    const segment = segments[depth]!;
    const child = node.statics.get(segment);
    if (child) {
      const found = this.walk(child, segments, depth + 1, values, lookup, allow);
      if (found) return found;
    }
    // An empty segment ("//") never binds a path variable.
    if (node.variable && segment !== '') {
      values.push(segment);
      const found = this.walk(node.variable, segments, depth + 1, values, lookup, allow);
      values.pop();
      if (found) return found;
    }
    return undefined;
  }
}

/** Whether two methods overlap: equal, or either is unset (any method). */
export function methodsOverlap(a: string | undefined, b: string | undefined): boolean {
  return a === undefined || b === undefined || a === b;
}

/** The first entry that serves the same URLs as `candidate` with an overlapping method. */
export function findConflict<T>(
  entries: Iterable<RouteEntry<T>>,
  candidate: { pattern: UrlPattern; method: string | undefined },
): RouteEntry<T> | undefined {
  for (const e of entries) {
    if (e.pattern.shape === candidate.pattern.shape && methodsOverlap(e.method, candidate.method)) return e;
  }
  return undefined;
}

/**
 * URL patterns of aliases (`/orders/{id}`): a path under `/api` whose whole segments may be path
 * variables. Patterns are compared by shape, so `/orders/{id}` and `/orders/{orderId}` are the
 * same URL (two aliases with them conflict).
 */

export type Segment = { kind: 'static'; value: string } | { kind: 'variable'; name: string };

export interface UrlPattern {
  /** As written in package.yaml, without a trailing slash (`/` stays `/`). */
  url: string;
  segments: Segment[];
  /** The pattern with every variable written `{}`: equal shapes serve the same URLs. */
  shape: string;
}

const VARIABLE = /^\{([A-Za-z_$][A-Za-z0-9_$]*)\}$/;
const STATIC = /^[A-Za-z0-9\-._~!$&'()*+,;=:@%]+$/;

/** Parses a pattern; throws a plain Error whose message says what is wrong (the caller names the alias). */
export function parsePattern(url: string): UrlPattern {
  if (typeof url !== 'string' || !url.startsWith('/')) throw new Error('the url must start with "/"');
  if (/[?#]/.test(url)) throw new Error('the url must not contain a query ("?") or fragment ("#")');
  const trimmed = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
  const parts = trimmed === '/' ? [] : trimmed.slice(1).split('/');
  const names = new Set<string>();
  const segments = parts.map((part): Segment => {
    if (part === '') throw new Error('the url has an empty segment ("//")');
    const variable = VARIABLE.exec(part);
    if (variable) {
      const name = variable[1]!;
      if (names.has(name)) throw new Error(`the path variable {${name}} appears twice`);
      names.add(name);
      return { kind: 'variable', name };
    }
    if (part.includes('{') || part.includes('}')) {
      throw new Error(`segment "${part}": a path variable is a whole segment, e.g. /orders/{id}`);
    }
    if (!STATIC.test(part)) throw new Error(`segment "${part}" has characters not allowed in a URL path`);
    let value: string;
    try {
      value = decodeURIComponent(part);
    } catch {
      throw new Error(`segment "${part}" is not valid percent-encoding`);
    }
    return { kind: 'static', value };
  });
  const shape =
    '/' + segments.map((s) => (s.kind === 'static' ? encodeURIComponent(s.value) : '{}')).join('/');
  return { url: trimmed, segments, shape };
}

/**
 * The decoded segments of a request path below `/api` (`rest` is what follows `/api/`). A trailing
 * slash is ignored, as in patterns. Returns undefined when a segment is not valid percent-encoding.
 */
export function splitRequestPath(rest: string): string[] | undefined {
  const path = rest.endsWith('/') ? rest.slice(0, -1) : rest;
  if (path === '') return [];
  const parts = path.split('/');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (part.includes('%')) {
      try {
        parts[i] = decodeURIComponent(part);
      } catch {
        return undefined;
      }
    }
  }
  return parts;
}

import { XMLBuilder } from 'fast-xml-parser';
import Negotiator from 'negotiator';

const builder = new XMLBuilder({ ignoreAttributes: true, format: false, suppressEmptyNode: false });

const JSON_TYPES = ['application/json', 'application/xml', 'text/xml'];

/** True when the request's Accept header prefers XML over JSON (JSON wins ties and absence). */
export function prefersXml(accept: string | undefined): boolean {
  if (!accept || !accept.includes('xml')) return false;
  const best = new Negotiator({ headers: { accept } }).mediaType(JSON_TYPES);
  return best === 'application/xml' || best === 'text/xml';
}

/**
 * JSON value → XML document. The root element is `<response>` (`<error>` for error bodies); an
 * array becomes a sequence of `<item>` elements inside its own element; keys that are not XML names
 * have the offending characters replaced by `_`. See docs/http-api.md.
 */
export function toXml(payload: unknown): string {
  const root = isErrorBody(payload) ? 'error' : 'response';
  return '<?xml version="1.0" encoding="UTF-8"?>' + builder.build({ [root]: convert(payload) });
}

function isErrorBody(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).join() === 'message,code';
}

function convert(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? '' : { item: value.map(convert) };
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== undefined) out[xmlName(k)] = convert(v);
    }
    return out;
  }
  return value;
}

function xmlName(key: string): string {
  const name = key.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
}

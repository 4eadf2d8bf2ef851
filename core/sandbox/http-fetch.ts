import { STATUS_CODES } from 'node:http';
import { request } from 'undici';
import { SandboxHttpError } from './errors.js';
import type { FetchRequest, FetchResponse } from './protocol.js';

export interface FetchLimits {
  timeoutMs: number;
  maxBytes: number;
}

/**
 * `ctx.http.fetch`, performed on the main thread with undici. Only http and https; the whole
 * exchange (headers and body) must finish within `timeoutMs`; a body over `maxBytes` aborts the
 * request. Redirects are not followed: a 3xx is returned as it is. Every failure is
 * JCT_SANDBOX_HTTP naming the method and URL, catchable in the service.
 */
export async function httpFetch(req: FetchRequest, limits: FetchLimits): Promise<FetchResponse> {
  let url: URL;
  try {
    url = new URL(req.url);
  } catch {
    throw new SandboxHttpError(`ctx.http.fetch: '${req.url}' is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SandboxHttpError(`ctx.http.fetch: only http and https URLs are allowed, not ${url.protocol}`);
  }
  const init = req.init ?? {};
  const method = typeof init.method === 'string' ? init.method.toUpperCase() : 'GET';
  const headers: Record<string, string> = {};
  if (init.headers !== null && typeof init.headers === 'object') {
    for (const [name, value] of Object.entries(init.headers)) headers[name.toLowerCase()] = String(value);
  }
  let body: string | undefined;
  if (typeof init.body === 'string') body = init.body;
  else if (init.body !== undefined && init.body !== null) {
    body = JSON.stringify(init.body);
    headers['content-type'] ??= 'application/json';
  }
  const what = `ctx.http.fetch ${method} ${url.href}`;
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, limits.timeoutMs);
  try {
    const res = await request(url, { method: method as 'GET', headers, body, signal: abort.signal });
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      abort.abort();
      throw new SandboxHttpError(
        `${what}: the response body (${declared} bytes) is over ${limits.maxBytes} bytes`,
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > limits.maxBytes) {
        abort.abort();
        throw new SandboxHttpError(`${what}: the response body is over ${limits.maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return {
      status: res.statusCode,
      statusText: STATUS_CODES[res.statusCode] ?? '',
      url: url.href,
      headers: responseHeaders,
      body: Buffer.concat(chunks).toString('utf8'),
    };
  } catch (err) {
    if (err instanceof SandboxHttpError) throw err;
    if (timedOut) throw new SandboxHttpError(`${what}: no complete answer within ${limits.timeoutMs} ms`);
    throw new SandboxHttpError(`${what}: ${(err as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

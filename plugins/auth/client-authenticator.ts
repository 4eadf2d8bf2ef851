import { createHash, timingSafeEqual } from 'node:crypto';
import { invalidClient, OAuthError } from './oauth-error.js';

/** The client id of the version-3 clients: a public client that sends no secret. */
export const LEGACY_CLIENT_ID = 'esb';

export interface ClientSettings {
  clientId: string;
  clientSecret: string;
  /** Also accept the legacy public client `esb`. */
  legacyClients: boolean;
}

/** The client parameters of a form body (each already checked to be given at most once). */
export interface ClientParams {
  client_id?: string | undefined;
  client_secret?: string | undefined;
}

/**
 * Client authentication at the OAuth endpoints (RFC 6749 §2.3.1): the custom client by its
 * secret, in the body or by HTTP Basic (whose user and password are form-urlencoded first), and
 * with `legacy-clients` the public client `esb` with no secret. Using both methods at once is an
 * `invalid_request`; any failure is a 401 `invalid_client`.
 */
export class ClientAuthenticator {
  private readonly secretDigest: Buffer;

  constructor(private readonly settings: ClientSettings) {
    this.secretDigest = digest(settings.clientSecret);
  }

  /** The authenticated client's id. */
  authenticate(authorization: string | undefined, params: ClientParams): string {
    let id = params.client_id;
    let secret = params.client_secret;
    if (authorization !== undefined && authorization !== '') {
      const basic = parseBasic(authorization);
      if (secret !== undefined) {
        throw new OAuthError(
          'invalid_request',
          'client credentials were sent both in the Authorization header and in the body; use one',
        );
      }
      if (id !== undefined && id !== basic.id) {
        throw new OAuthError(
          'invalid_request',
          'client_id in the body differs from the Authorization header',
        );
      }
      id = basic.id;
      secret = basic.secret;
    }
    if (id === undefined) throw invalidClient('client authentication is required (client_id)');
    if (id === this.settings.clientId) {
      if (secret === undefined) throw invalidClient('client_secret is required for this client');
      // Compare digests so the comparison is constant-time whatever the lengths.
      if (!timingSafeEqual(digest(secret), this.secretDigest))
        throw invalidClient('client authentication failed');
      return id;
    }
    if (id === LEGACY_CLIENT_ID && this.settings.legacyClients) return id;
    throw invalidClient('client authentication failed');
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

function parseBasic(header: string): { id: string; secret: string } {
  const m = /^Basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!m) throw invalidClient('the Authorization header must use the Basic scheme here');
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidClient('malformed Basic credentials');
  try {
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw invalidClient('malformed Basic credentials (bad percent-encoding)');
  }
}

/** application/x-www-form-urlencoded decoding, as RFC 6749 §2.3.1 asks of Basic credentials. */
function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}

/**
 * An error of the OAuth endpoints (`/oauth/token`, `/oauth/revoke`, `/oauth/introspect`), answered
 * as RFC 6749 §5.2 `{error, error_description}` rather than Junction's `{message, code}`.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'server_error';

export interface OAuthErrorBody {
  error: OAuthErrorCode;
  error_description: string;
}

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly statusCode = 400,
    readonly headers: Record<string, string> = {},
    /** A retired refresh token presented again (counted apart in the metrics). */
    readonly reuse = false,
  ) {
    super(description);
    this.name = 'OAuthError';
  }

  toJSON(): OAuthErrorBody {
    return { error: this.error, error_description: this.description };
  }
}

/** 401 `invalid_client` (RFC 6749 §5.2): the challenge names the Basic scheme clients may use. */
export function invalidClient(description: string): OAuthError {
  return new OAuthError('invalid_client', description, 401, {
    'www-authenticate': 'Basic realm="junction", charset="UTF-8"',
  });
}

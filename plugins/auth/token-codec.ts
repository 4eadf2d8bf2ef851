import { hash, randomBytes } from 'node:crypto';

/**
 * Tokens are opaque random values: 32 bytes (256 bits) from the CSPRNG, base64url without
 * padding (43 characters). Only their SHA-256 is stored: a copy of the data folder reveals no
 * usable token. A fast hash is enough because the input is
 * random and long (there is nothing to brute-force), unlike a password.
 */
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

// One randomBytes call per 128 tokens instead of one per token: the refresh path issues two.
const POOL_TOKENS = 128;
let pool = Buffer.alloc(0);
let offset = 0;

export function newToken(): string {
  if (offset + TOKEN_BYTES > pool.length) {
    pool = randomBytes(TOKEN_BYTES * POOL_TOKENS);
    offset = 0;
  }
  const token = pool.toString('base64url', offset, offset + TOKEN_BYTES);
  // Never hand out the same bytes twice, even through a stale reference to the pool.
  pool.fill(0, offset, offset + TOKEN_BYTES);
  offset += TOKEN_BYTES;
  return token;
}

/** Whether a string could be a token we issued (cheap check before hashing). */
export function isTokenShaped(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

/** The form in which a token is stored and looked up. */
export function hashToken(token: string): string {
  // The one-shot hash is about three times faster than createHash for a short input; this runs on
  // every bearer check.
  return hash('sha256', token, 'base64url');
}

/** A token family (one grant: its access and refresh tokens) id: random, not secret. */
export function newFamilyId(): string {
  return randomBytes(12).toString('base64url');
}

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes with Node's scrypt, self-describing so parameters can change without breaking
 * stored hashes: `scrypt$N=16384,r=8,p=1$<salt base64url>$<key base64url>`.
 */

const DEFAULTS = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, params: ScryptOptions, keylen: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, keylen, { ...params, maxmem: 256 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, DEFAULTS, KEY_LENGTH);
  const params = `N=${DEFAULTS.N},r=${DEFAULTS.r},p=${DEFAULTS.p}`;
  return `scrypt$${params}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Parses a hash; undefined when it is not one of ours. */
export function parseHash(hash: string): { params: ScryptOptions; salt: Buffer; key: Buffer } | undefined {
  const m = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(hash);
  if (!m) return undefined;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (N < 2 || (N & (N - 1)) !== 0 || r < 1 || p < 1) return undefined;
  return { params: { N, r, p }, salt: Buffer.from(m[4]!, 'base64url'), key: Buffer.from(m[5]!, 'base64url') };
}

/** Constant-time comparison of a password with a stored hash. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const parsed = parseHash(hash);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.params, parsed.key.length);
  return timingSafeEqual(key, parsed.key);
}

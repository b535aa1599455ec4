// API key secrets: `pk_live_` + 32 random bytes (base62 would do; base64url is standard and
// URL-safe). Only a SHA-256 hash is stored: the keys are high-entropy, so a fast hash is enough and
// lookup by hash stays an index probe. The prefix shown in listings is the first 12 characters.
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_PREFIX = 'pk_live_';
const KEY_RE = /^pk_live_[A-Za-z0-9_-]{43}$/;

export function generateApiKey(): { key: string; hash: string; prefix: string } {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashApiKey(key), prefix: key.slice(0, 12) };
}

/** SHA-256 of the key, hex (crypto.hash: one call, no Hash object; it runs on every request). */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function isWellFormedKey(key: string): boolean {
  return KEY_RE.test(key);
}

/** Constant-time comparison of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

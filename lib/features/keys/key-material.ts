import { createHash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'ak_';
const KEY_BODY_LENGTH = 32;
export const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

// 248 = 4 * 62: bytes at or above it are dropped, so every character is equally likely (no modulo bias).
const UNBIASED_LIMIT = 256 - (256 % KEY_ALPHABET.length);

export function generateApiKey(): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of randomBytes(KEY_BODY_LENGTH)) {
      if (byte >= UNBIASED_LIMIT) continue;
      body += KEY_ALPHABET[byte % KEY_ALPHABET.length];
      if (body.length === KEY_BODY_LENGTH) break;
    }
  }
  return KEY_PREFIX + body;
}

/** Standard SHA-256, lower-case hex, over the full key including its prefix. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[A-Za-z0-9]{${KEY_BODY_LENGTH}}$`);

export function isWellFormedKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

export function looksLikeAccessKey(credential: string): boolean {
  return credential.startsWith(KEY_PREFIX);
}

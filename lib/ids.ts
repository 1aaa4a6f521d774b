import { randomBytes, randomInt } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// Bytes at or above 248 (= 4 * 62) are dropped, so every character is equally likely.
const UNBIASED_LIMIT = 256 - (256 % BASE62.length);

/** `length` characters of [A-Za-z0-9] from crypto randomness, without modulo bias. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length + 8)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62[byte % BASE62.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** `length` decimal digits from crypto randomness (leading zeros allowed). */
export function randomDigits(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String(randomInt(10));
  return out;
}

/** Opaque account id: not derived from the phone number. */
export const newOpenid = () => `u_${randomBase62(20)}`;
export const newCommentId = () => `c_${randomBase62(16)}`;
export const newVid = () => randomBase62(10);

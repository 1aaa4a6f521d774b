import { randomBytes } from 'node:crypto';
import { seededRandom } from './seeded-random.js';

/**
 * Identifiers, never secrets: access keys and SMS codes draw their own crypto randomness
 * (lib/features/keys/key-material.ts, lib/transport/hub/gen-code.ts), and share ids `unguessableBase62`. That is what
 * lets the feed's offline evaluation make these repeatable (`useSeededIds`), ids and the feed's
 * per-call seed alike.
 */
let bytes: (n: number) => Uint8Array = randomBytes;

/** A seed makes every id below repeatable in this process; undefined restores crypto randomness. */
export function useSeededIds(seed: number | undefined): void {
  if (seed === undefined) {
    bytes = randomBytes;
    return;
  }
  const next = seededRandom(seed);
  bytes = (n) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256));
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
// Bytes at or above 248 (= 4 * 62) are dropped, so every character is equally likely.
const UNBIASED_LIMIT = 256 - (256 % BASE62.length);

/** `length` characters of [A-Za-z0-9], without modulo bias. */
export function randomBase62(length: number, source: (n: number) => Uint8Array = bytes): string {
  let out = '';
  while (out.length < length) {
    for (const byte of source(length + 8)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62[byte % BASE62.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/**
 * `length` characters of [A-Za-z0-9] from crypto randomness always, seeded or not: for an id that
 * must not be guessed (a share id, lib/features/share/shares.ts), 5.95 bits a character.
 */
export const unguessableBase62 = (length: number) => randomBase62(length, randomBytes);

/** `length` decimal digits (leading zeros allowed), without modulo bias. */
export function randomDigits(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of bytes(length + 8)) {
      if (byte >= 250) continue;
      out += String(byte % 10);
      if (out.length === length) break;
    }
  }
  return out;
}

/** Opaque account id: not derived from the phone number. */
export const newOpenid = () => `u_${randomBase62(20)}`;
export const newCommentId = () => `c_${randomBase62(16)}`;
export const newVid = () => randomBase62(10);

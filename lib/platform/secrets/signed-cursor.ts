import { createHmac, timingSafeEqual } from 'node:crypto';
import { derivedKey, getSigningSecrets, verificationSecrets } from './signing-secrets.js';

/**
 * Cursors the server hands out (the feed's `fav_index`, the exports' `cursor`) are opaque to clients
 * and authenticated: `<payload>.<mac>`, the payload base64url JSON and the mac the first 16 bytes of
 * an HMAC-SHA256 over the purpose and the payload, keyed from the app's signing secret. A cursor the
 * server did not issue, or one altered by a single bit, opens to nothing: the caller answers 400
 * naming the parameter, and no forged value ever reaches DynamoDB. A purpose binds a cursor to the
 * list it continues (a comments cursor cannot continue the accounts export). Cursors are signed with
 * the current secret and opened with the current or the previous one: a rotation breaks no paging.
 */
const MAC_BYTES = 16;
/** Long enough for every cursor the server issues; anything longer is not one of them. */
export const MAX_CURSOR_LENGTH = 1024;

const PURPOSE = 'cursor-hmac';

const mac = (k: Buffer, purpose: string, payload: string) => createHmac('sha256', k).update(`${purpose}\n${payload}`).digest().subarray(0, MAC_BYTES);

export async function signCursor(purpose: string, value: unknown): Promise<string> {
  const payload = Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
  const { current } = await getSigningSecrets();
  return `${payload}.${mac(derivedKey(current, PURPOSE), purpose, payload).toString('base64url')}`;
}

/** The value a cursor was signed with, or undefined when it is not an authentic cursor of `purpose`. */
export async function openCursor(purpose: string, raw: string): Promise<unknown> {
  if (raw.length > MAX_CURSOR_LENGTH) return undefined;
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/.exec(raw);
  if (!match) return undefined;
  const [, payload, given] = match as unknown as [string, string, string];
  // Compared as text: base64url has several spellings of the same bytes (the last character's
  // spare bits), and an altered character must not pass.
  const actual = Buffer.from(given);
  const authentic = (await verificationSecrets()).some((secret) => {
    const expected = Buffer.from(mac(derivedKey(secret, PURPOSE), purpose, payload).toString('base64url'));
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  });
  if (!authentic) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

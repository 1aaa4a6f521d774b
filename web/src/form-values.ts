/** Pure helpers for the create form (docs/web.md, "What it does"). */

/** Splits on ASCII and full-width commas, trims, drops empty items. */
export function parseScopes(input: string): string[] {
  return input
    .split(/[,\uFF0C]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * A datetime-local value ("2031-05-06T07:08") is a wall-clock time in the person's time zone;
 * the API wants ISO 8601. Empty means "never expires" (null). Returns undefined when unparseable.
 */
export function expiryToIso(value: string): string | null | undefined {
  if (value.trim() === '') return null;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** The `min` for a datetime-local input: now, in local wall-clock time, to the minute. */
export function localDateTimeValue(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** gen_code's nonce: 8-64 characters of [A-Za-z0-9_-]; 24 random base64url characters here. */
export function randomNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import { documentAs } from '../api-doc.js';
import * as z from '../zod.js';
import { config, onConfigure } from '../config.js';
import { ValidationError } from '../errors.js';

/**
 * A real phone number in E.164 (`+8613800138000`). National numbers are read in the configured
 * default region. The message names the query parameter that carried the number.
 */
export function normalizePhone(input: string, parameter: string): string {
  // A `+` sent unencoded in a query string arrives as a space: " 8613800138000".
  const value = (/^ +\d/.test(input) ? `+${input.trimStart()}` : input).trim();
  const parsed = value ? parsePhoneNumberFromString(value, config.DEFAULT_PHONE_REGION as CountryCode) : undefined;
  if (!parsed || !parsed.isValid()) {
    throw new ValidationError(`Invalid parameter "${parameter}": not a valid phone number`);
  }
  return parsed.number;
}

/** The query schema of a phone number parameter: required, normalized to E.164. */
export const phoneParam = (parameter: string) =>
  documentAs(
    z.pipe(
      z.string({ error: 'is required' }).check(z.refine((v) => v.trim().length > 0, 'must not be empty')),
      z.transform((v: string) => normalizePhone(v, parameter)),
    ),
    { type: 'string', pattern: '\\S', description: 'A phone number: E.164 (+8613800138000) or national in the default region; the server checks it is a real number' },
  );

/**
 * The country (ISO 3166 alpha-2) of a number in E.164, from its number plan (`+852…` is HK, not
 * CN); undefined for numbers of no country (`+800…`, `+882…`).
 */
export function phoneCountry(e164: string): string | undefined {
  return parsePhoneNumberFromString(e164)?.country;
}

/** E.164 without validation errors, for configuration lists (ADMIN_PHONES). */
export function tryNormalizePhone(input: string): string | undefined {
  const parsed = parsePhoneNumberFromString(input.trim(), config.DEFAULT_PHONE_REGION as CountryCode);
  return parsed?.isValid() ? parsed.number : undefined;
}

/**
 * `+86 138****8000`: the country code, then the national number with its middle hidden (the first
 * three and last four digits stay visible on long numbers, fewer on short ones).
 */
export function maskPhone(e164: string): string {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed) return '****';
  const national = String(parsed.nationalNumber);
  const length = national.length;
  const tail = length >= 8 ? 4 : 2;
  const head = length >= 10 ? 3 : length >= 7 ? 2 : 1;
  const hidden = Math.max(1, length - head - tail);
  return `+${parsed.countryCallingCode} ${national.slice(0, head)}${'*'.repeat(hidden)}${national.slice(head + hidden)}`;
}

let adminPhones: Set<string> | undefined;
onConfigure(() => (adminPhones = undefined));
/** Phones in ADMIN_PHONES get the `admin` role when their account is created or signs in. */
export function isAdminPhone(e164: string): boolean {
  adminPhones ??= new Set(config.ADMIN_PHONES.map((p) => tryNormalizePhone(p)).filter((p): p is string => p !== undefined));
  return adminPhones.has(e164);
}

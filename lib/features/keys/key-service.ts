import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import { AuthError, NotFoundError, RateLimitedError, ValidationError, type AuthFailure } from '../../platform/errors.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { countMetric } from '../../platform/observability/metrics.js';
import { checkedText } from '../../platform/text.js';
import { KEY_PREFIX, generateApiKey, hashApiKey, isWellFormedKey } from './key-material.js';
import { keyHint, toPublicKey, type PublicKey, type StoredKey } from './key-record.js';
import {
  ACCOUNT_SUSPENDED,
  getKeyOfUser,
  insertKey,
  listKeysOfUser,
  markRevoked,
  nextKeyId,
  removeKey,
  withLastUse,
} from './key-records.js';
import { readKeyUsage } from './minute-counters.js';
import { readGuardUsage, storeLimitEvent, useKey, USAGE_DAYS, type KeyUse } from './key-use.js';

const MAX_NAME_LENGTH = 64;
const MAX_SCOPES = 20;
const MAX_SCOPE_LENGTH = 64;
const MAX_RATE_LIMIT_PER_MINUTE = 100_000;
const NOT_YOURS = 'API key does not exist or does not belong to the current user';
const NOT_VERIFIED = 'Invalid, revoked or expired API key';

export const createKeySchema = z.strictBody({
  name: checkedText(
    z
      .string({ error: 'must be a string' })
      .check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`)),
  ),
  scopes: z.pipe(
    z.pipe(
      z.optional(
        documentAs(z.array(checkedText(z.string({ error: 'every scope must be a string' })), { error: 'must be an array of strings' }), {
          type: 'array',
          // Counted after trimming, dropping empty items and duplicates (docs/api-keys.md, "POST /api/v1/api-keys").
          items: { type: 'string', pattern: `^\\s*[^\\u0000-\\u001f\\u007f-\\u009f]{0,${MAX_SCOPE_LENGTH}}\\s*$` },
          maxItems: MAX_SCOPES,
          description: `At most ${MAX_SCOPES} scopes of at most ${MAX_SCOPE_LENGTH} characters, each trimmed; empty items and duplicates are dropped before counting`,
        }),
      ),
      z.transform((items: string[] | undefined) => [...new Set((items ?? []).map((s) => s.trim()).filter(Boolean))]),
    ),
    z
      .array(z.string().check(z.maxLength(MAX_SCOPE_LENGTH, `each scope must be at most ${MAX_SCOPE_LENGTH} characters`)))
      .check(z.maxLength(MAX_SCOPES, `at most ${MAX_SCOPES} scopes`)),
  ),
  expires_at: z.pipe(
    z.optional(
      z.union([z.iso.datetime({ offset: true, error: 'must be an ISO 8601 timestamp or null' }), z.null()], {
        error: 'must be an ISO 8601 timestamp or null',
      }),
    ),
    z.transform((v: string | null | undefined) => (v == null ? null : new Date(v).toISOString())),
  ),
  rate_limit_per_minute: z.optional(
    z
      .number({ error: `must be an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}` })
      .check(
        z.int(`must be an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}`),
        z.minimum(1, `must be an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}`),
        z.maximum(MAX_RATE_LIMIT_PER_MINUTE, `must be an integer from 1 to ${MAX_RATE_LIMIT_PER_MINUTE}`),
      ),
  ),
  // Accepted and ignored: the key's owner is always the caller (docs/api-keys.md, "POST /api/v1/api-keys").
  user_id: z.optional(z.unknown()),
});

export type CreateKeyInput = z.input<typeof createKeySchema>;
type CreateKeyBody = z.output<typeof createKeySchema>;
/**
 * What createKey takes: the body as the route's schema outputs it (POST /api/v1/api-keys,
 * lib/transport/routes/create-key.ts); scopes and expiry may be left out by a caller in the code.
 */
export type NewKey = Pick<CreateKeyBody, 'name' | 'rate_limit_per_minute'> & Partial<Pick<CreateKeyBody, 'scopes' | 'expires_at'>>;

export async function createKey(userId: string, input: NewKey): Promise<{ api_key: string; key: PublicKey }> {
  const now = clock.now();
  const expiresAt = input.expires_at ?? null;
  if (expiresAt !== null && Date.parse(expiresAt) <= now) {
    throw new ValidationError('Invalid parameter "expires_at": must be in the future');
  }
  const apiKey = generateApiKey();
  const nowIso = new Date(now).toISOString();
  const record: StoredKey = {
    id: await nextKeyId(),
    name: input.name,
    key_prefix: KEY_PREFIX,
    user_id: userId, // from the credential, never from the body
    scopes: input.scopes ?? [],
    expires_at: expiresAt,
    last_used_at: null,
    is_active: true,
    created_at: nowIso,
    updated_at: nowIso,
    key_hash: hashApiKey(apiKey),
    // The plaintext exists only now: the hint is taken from it here or never.
    key_hint: keyHint(apiKey),
    rate_limit_per_minute: input.rate_limit_per_minute ?? config.KEY_RATE_LIMIT_PER_MINUTE,
  };
  // Key management takes a login JWT only (lib/transport/routes/*-key.ts): the actor is the owner, by JWT.
  const event: AuditEvent = { action: 'key.created', actor: userId, subject: userId, key_id: String(record.id), key_name: record.name, via: 'jwt' };
  await insertKey(record, config.MAX_KEYS_PER_USER, [auditItem(event, now)]);
  writeAuditLine(event);
  countMetric('KeysCreated');
  return { api_key: apiKey, key: toPublicKey(record, now) };
}

export async function listKeys(userId: string): Promise<PublicKey[]> {
  const now = clock.now();
  return (await withLastUse(await listKeysOfUser(userId))).map((k) => toPublicKey(k, now));
}

/** Who acts on a key: its owner (key management) or an administrator; both by JWT. */
export interface KeyActor {
  user_id: string;
  via: string;
}

/**
 * Revoking an already revoked key succeeds again (the seed keeps the record for audit). Only the
 * revoke that ends an active key stores the audit event (in its transaction), writes the line and
 * counts in KeysRevoked: a repeat, or a revoke that another one beat, changes nothing.
 */
export async function revokeKey(userId: string, id: number, actor: KeyActor = { user_id: userId, via: 'jwt' }): Promise<{ revoked: true; id: number }> {
  await revokeStoredKey(await getKeyOfUser(userId, id), actor);
  return { revoked: true, id };
}

/**
 * Revokes a key read just before (undefined: 404); answers the key as stored afterwards. `before`:
 * events of what led to the revoke (an administrator's lookup of the key), stored in the revoke's
 * own transaction, active key or not, 1 ms before it (the trail lists them in the order they
 * happened): with the revoke or not at all, so a failed revoke leaves no event of a look whose
 * answer nobody got, and its retry stores one.
 */
export async function revokeStoredKey(key: StoredKey | undefined, actor: KeyActor, before: AuditEvent[] = []): Promise<StoredKey> {
  if (!key) throw new NotFoundError(NOT_YOURS);
  const nowIso = clock.nowIso();
  const at = Date.parse(nowIso);
  const preceding = before.map((e) => auditItem(e, at - 1));
  if (!key.is_active) {
    if (!(await markRevoked(key, nowIso, preceding, false))) throw new NotFoundError(NOT_YOURS);
    before.forEach((e) => writeAuditLine(e));
    return { ...key, updated_at: nowIso };
  }
  const event: AuditEvent = { action: 'key.revoked', actor: actor.user_id, subject: key.user_id, key_id: String(key.id), key_name: key.name, via: actor.via };
  if (await markRevoked(key, nowIso, [...preceding, auditItem(event, at)], true)) {
    before.forEach((e) => writeAuditLine(e));
    writeAuditLine(event);
    countMetric('KeysRevoked');
    return { ...key, is_active: false, updated_at: nowIso };
  }
  // Gone, or revoked by another request in between (which stored the event): read what is there.
  const now = await getKeyOfUser(key.user_id, key.id);
  if (!now) throw new NotFoundError(NOT_YOURS);
  return revokeStoredKey(now, actor, before);
}

export async function deleteKey(userId: string, id: number): Promise<{ deleted: true; id: number }> {
  const key = await getKeyOfUser(userId, id);
  const event: AuditEvent | undefined = key && { action: 'key.deleted', actor: userId, subject: userId, key_id: String(id), key_name: key.name, via: 'jwt' };
  if (!key || !(await removeKey(key, [auditItem(event!)]))) throw new NotFoundError(NOT_YOURS);
  writeAuditLine(event!);
  countMetric('KeysDeleted');
  return { deleted: true, id };
}

const VERIFICATION_OUTCOMES: Partial<Record<AuthFailure, 'malformed' | 'unknown' | 'revoked' | 'expired' | 'suspended'>> = {
  malformed_key: 'malformed',
  unknown_key: 'unknown',
  revoked_key: 'revoked',
  expired_key: 'expired',
  account_suspended: 'suspended',
};

/** `GET /api/v1/api-keys/verify`: verifyAccessKey, each answer counted by outcome (KeyVerifications). */
export async function verifyKeyEndpoint(rawKey: string | undefined): Promise<{ user_id: string; scopes: string[]; valid: true }> {
  try {
    const { user_id, scopes } = await verifyAccessKey(rawKey);
    countMetric('KeyVerifications', 'valid');
    return { user_id, scopes, valid: true };
  } catch (error) {
    const outcome = error instanceof AuthError && error.reason ? VERIFICATION_OUTCOMES[error.reason] : undefined;
    if (outcome) countMetric('KeyVerifications', outcome);
    else if (error instanceof RateLimitedError) countMetric('KeyVerifications', 'rate_limited');
    // One message for every cause here (docs/api-keys.md, "GET /api/v1/api-keys/verify");
    // authentication elsewhere says "suspended".
    if (error instanceof AuthError && error.reason === 'account_suspended') throw new AuthError(NOT_VERIFIED, 'account_suspended');
    throw error;
  }
}

const MINUTE_MS = 60_000;
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * The per-key rate limit's refusal (docs/api-keys.md, "Per-key rate limit"): 429 with Retry-After =
 * the seconds left in the minute. The minute's `key.rate_limited` event is stored by the first
 * refusal that finds it missing (with the guard's mark of it, one transaction: once per key and
 * minute); a refusal that cannot store it is 503, so that the client's retry (or any later refusal)
 * stores it.
 */
async function refuseOverLimit(keyHash: string, use: Extract<KeyUse, { outcome: 'limited' }>, now: number): Promise<never> {
  const { binding, limit, at } = use;
  if (!use.audited) {
    const event: AuditEvent = { action: 'key.rate_limited', actor: binding.user_id, subject: binding.user_id, key_id: String(binding.id), via: 'api_key' };
    if (await storeLimitEvent(keyHash, at, auditItem(event, now))) writeAuditLine(event);
  }
  countMetric('KeysRateLimited');
  // Until the end of the minute the use counted in (a request stamped late counts in the next one).
  throw new RateLimitedError(`This access key is limited to ${limit} requests per minute; retry after the minute ends`, (at - (at % MINUTE_MS) + MINUTE_MS - now) / 1000);
}

/**
 * `GET /api/v1/api-keys/{id}/usage`: the admitted requests of one of the caller's keys per UTC day,
 * the last 30 days oldest first (today last), days without requests as 0. `readingKey`: the access
 * key asking, if it is one: a key reads its own usage only, and another id gets the same 404 as an
 * unknown one (docs/api-keys.md, "GET /api/v1/api-keys/{id}/usage"); undefined for a login token.
 */
export async function keyUsage(userId: string, id: number, readingKey?: { id: number | undefined }): Promise<{ days: { date: string; requests: number }[] }> {
  if (readingKey && readingKey.id !== id) throw new NotFoundError(NOT_YOURS);
  const key = await getKeyOfUser(userId, id);
  if (!key) throw new NotFoundError(NOT_YOURS);
  return { days: (await dailyKeyUsage(key, clock.now())).days };
}

/**
 * The admitted requests of `key` per UTC day, the USAGE_DAYS days up to `nowMs`'s oldest first,
 * days without requests as 0 (the usage endpoint and the data export): its guard's day counters
 * (one GetItem), plus the minute counters written before the guard counted (one Query: they expire
 * 32 days after their minute); `queries`: the Query pages read.
 */
export async function dailyKeyUsage(key: Pick<StoredKey, 'id' | 'key_hash'>, nowMs: number): Promise<{ days: { date: string; requests: number }[]; queries: number }> {
  const dayMs = 24 * 3600 * 1000;
  const dates = Array.from({ length: USAGE_DAYS }, (_, i) => utcDay(nowMs - (USAGE_DAYS - 1 - i) * dayMs));
  const totals = new Map(dates.map((d) => [d, 0]));
  const [guardDays, { minutes, queries }] = await Promise.all([
    readGuardUsage(key.key_hash),
    readKeyUsage(key.id, `${dates[0]}T00:00`, `${dates[USAGE_DAYS - 1]}T23:59`),
  ]);
  for (const { minute, requests } of minutes) {
    const date = minute.slice(0, 10);
    if (totals.has(date)) totals.set(date, totals.get(date)! + requests);
  }
  for (const [day, requests] of guardDays) {
    const date = utcDay(day * dayMs);
    if (totals.has(date)) totals.set(date, totals.get(date)! + requests);
  }
  return { days: dates.map((date) => ({ date, requests: totals.get(date)! })), queries };
}

/**
 * The checks of verify (docs/api-keys.md, "GET /api/v1/api-keys/verify"), in order, shared by the
 * verify endpoint and the authorizer: trim, prefix (and shape), then ONE conditional UpdateItem of
 * the key's hash guard (key-use.ts) that checks it is there, active, not expired and its owner not
 * suspended, counts the request against the key's limit and records last_used_at once a minute.
 * Every failure gives the same 401 so the endpoint tells an enumerator nothing.
 */
export async function verifyAccessKey(rawKey: string | undefined): Promise<{ user_id: string; scopes: string[]; key_id: number }> {
  const key = (rawKey ?? '').trim();
  if (!isWellFormedKey(key)) throw new AuthError(NOT_VERIFIED, 'malformed_key');
  const keyHash = hashApiKey(key);
  const now = clock.now();
  const use = await useKey(keyHash, now, config.KEY_RATE_LIMIT_PER_MINUTE);
  switch (use.outcome) {
    case 'unknown':
      throw new AuthError(NOT_VERIFIED, 'unknown_key');
    case 'revoked':
      throw new AuthError(NOT_VERIFIED, 'revoked_key');
    case 'expired':
      throw new AuthError(NOT_VERIFIED, 'expired_key');
    case 'suspended':
      throw new AuthError(ACCOUNT_SUSPENDED, 'account_suspended');
    case 'limited':
      return refuseOverLimit(keyHash, use, now);
  }
  const { binding } = use;
  return { user_id: binding.user_id, scopes: binding.scopes, key_id: Number(binding.id) };
}

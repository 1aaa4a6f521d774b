import { GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { cancellationCode, retryOnConflict, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { retryTransient } from '../../platform/db/failures.js';
import { UnavailableError } from '../../platform/errors.js';
import { keyStatus } from './key-record.js';
import { keyBindingFromItem, keyRecordKeys, type KeyBinding } from './key-records.js';

/**
 * A key's use, checked and counted in ONE conditional UpdateItem of its hash guard
 * (docs/api-keys.md, "Per-key rate limit"): the condition checks the key's state (there, active, not
 * expired, owner not suspended) and the minute's count against the key's own limit; the update
 * counts the request in the minute and in the day (usage) and records last_used_at once a minute.
 * The new item answers verification; on a failed condition the old item (ALL_OLD) tells why.
 */

const TABLE = () => tableNames.apiKeys;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 3600 * 1000;

/**
 * The guard's minute counters live in slots named by the minute modulo MINUTE_SLOTS: each use
 * removes the other slots, so at most one is ever stored, and a use in a new minute finds its slot
 * absent (if_not_exists starts it at 0). Only when a key's previous use was a multiple of
 * MINUTE_SLOTS minutes earlier is the slot still there: `win` (the minute it counts) tells, and a
 * second request starts it afresh. 31: no divisor of an hour, a day or a week.
 */
export const MINUTE_SLOTS = 31;
/** How many days of admitted requests the guard keeps (the usage endpoint's 30); older day counters are removed. */
export const USAGE_DAYS = 30;
/** The days before the kept ones that each use removes: a day counter survives only a gap of more than USAGE_DAYS + this (a few bytes). */
const STALE_DAYS_REMOVED = 7;

/** Attribute names of the use counters on the guard: the only place that spells them. */
export const guardUseAttributes = {
  /** Requests of the minute counted in slot `slot` (admitted ones only). */
  count: (slot: number) => `rn${slot}`,
  /** The minute's first use (what last_used_at takes, once a minute). */
  firstUse: (slot: number) => `rt${slot}`,
  /** The minute (`YYYY-MM-DDTHH:MM`) the stored slot counts. */
  window: 'win',
  /** The minute whose `key.rate_limited` event is stored (once per key and minute). */
  limitAudited: 'rla',
  /** Admitted requests of UTC day `epochDay` (days since 1970-01-01). */
  day: (epochDay: number) => `u${epochDay}`,
};

/** The guard's attributes a use at `nowMs` writes (tests: what a counted use may change). */
export function useAttributesAt(nowMs: number): string[] {
  const slot = Math.floor(nowMs / MINUTE_MS) % MINUTE_SLOTS;
  return [guardUseAttributes.count(slot), guardUseAttributes.firstUse(slot), guardUseAttributes.window, guardUseAttributes.day(epochDay(nowMs)), 'last_used_at'];
}

export const utcMinute = (ms: number) => new Date(ms).toISOString().slice(0, 16);
export const epochDay = (ms: number) => Math.floor(ms / DAY_MS);

export type KeyUse =
  | { outcome: 'admitted'; binding: KeyBinding }
  | { outcome: 'unknown' }
  | { outcome: 'revoked' | 'expired' | 'suspended'; binding: KeyBinding }
  /**
   * Past the key's limit this minute; `audited`: the minute's key.rate_limited event is stored; `at`:
   * the time the use was counted at (the request's own, or the start of the later minute it counted in).
   */
  | { outcome: 'limited'; binding: KeyBinding; limit: number; audited: boolean; at: number };

type Guard = KeyBinding & Record<string, unknown>;

/** The attributes both writes of a use touch, and the other slots they remove. */
function useParts(nowMs: number) {
  const minuteIndex = Math.floor(nowMs / MINUTE_MS);
  const slot = minuteIndex % MINUTE_SLOTS;
  const day = epochDay(nowMs);
  const names: Record<string, string> = {
    '#n': guardUseAttributes.count(slot),
    '#t': guardUseAttributes.firstUse(slot),
    '#d': guardUseAttributes.day(day),
    '#win': guardUseAttributes.window,
  };
  const removed: string[] = [];
  for (let s = 0; s < MINUTE_SLOTS; s++) {
    if (s === slot) continue;
    names[`#n${s}`] = guardUseAttributes.count(s);
    names[`#t${s}`] = guardUseAttributes.firstUse(s);
    removed.push(`#n${s}`, `#t${s}`);
  }
  for (let i = 0; i < STALE_DAYS_REMOVED; i++) {
    names[`#old${i}`] = guardUseAttributes.day(day - USAGE_DAYS - i);
    removed.push(`#old${i}`);
  }
  return { slot, names, remove: ` REMOVE ${removed.join(', ')}` };
}

/** The key's state as the condition checks it: there, active, not expired at `:nowIso`, owner not suspended. */
const USABLE =
  'attribute_exists(pk) AND is_active = :true AND (attribute_not_exists(expires_at) OR attribute_type(expires_at, :nullType) OR expires_at > :nowIso) AND (attribute_not_exists(suspended) OR suspended <> :true)';

function fromOld(item: Record<string, AttributeValue> | undefined): Guard | undefined {
  return item ? (unmarshall(item) as Guard) : undefined;
}

/**
 * Why a use the condition refused was refused, from the guard as it was (ALL_OLD). `later`: the
 * guard counts a later minute than the request's (a request stamped before a minute boundary that
 * lands after a request of the next minute), which the use then counts in.
 */
function refusal(old: Guard | undefined, nowMs: number, slot: number, defaultLimit: number): KeyUse | { stale: string } | { later: string } {
  if (!old) return { outcome: 'unknown' };
  const status = keyStatus(old, nowMs);
  if (status !== 'valid') return { outcome: status, binding: old };
  if (old.suspended === true) return { outcome: 'suspended', binding: old };
  const minute = utcMinute(nowMs);
  const window = old[guardUseAttributes.window];
  if (typeof window === 'string' && window > minute) return { later: window };
  if (old[guardUseAttributes.count(slot)] !== undefined && window !== minute) return { stale: String(window) };
  return { outcome: 'limited', binding: old, limit: old.rate_limit_per_minute ?? defaultLimit, audited: old[guardUseAttributes.limitAudited] === minute, at: nowMs };
}

/** The first instant of minute `minute` (`YYYY-MM-DDTHH:MM`, UTC). */
const minuteStart = (minute: string) => Date.parse(`${minute}:00.000Z`);

/**
 * Uses the key with hash `keyHash` at `nowMs`: one UpdateItem of its hash guard, strongly consistent
 * by nature (a write), so a new key is used on the first try and a revoke, delete or suspension
 * bites on the next request. `defaultLimit`: the limit of keys created before per-key limits.
 * A second request only when the minute's slot is stale (see MINUTE_SLOTS), or when the guard
 * already counts a later minute than `nowMs`'s: the window only moves forward, so the use counts in
 * that later minute (refused when it is full) and never resets it.
 */
export async function useKey(keyHash: string, nowMs: number, defaultLimit: number): Promise<KeyUse> {
  const attempt = async (at: number, staleWindow?: string): Promise<KeyUse | { stale: string } | { later: string }> => {
    try {
      const out = await retryOnConflict(() => db.send(new UpdateCommand(keyUseUpdate(keyHash, at, defaultLimit, staleWindow))));
      return { outcome: 'admitted', binding: keyBindingFromItem(out.Attributes)! };
    } catch (error) {
      if (!isConditionalCheckFailed(error)) throw error;
      return refusal(fromOld((error as { Item?: Record<string, AttributeValue> }).Item), at, useParts(at).slot, defaultLimit);
    }
  };
  let at = nowMs;
  let use = await attempt(at);
  for (let tries = 0; !('outcome' in use) && tries < 3; tries++) {
    if ('later' in use) {
      at = minuteStart(use.later);
      use = await attempt(at);
      continue;
    }
    use = await attempt(at, use.stale);
    // Another request started the slot first: count as usual.
    if ('outcome' in use && use.outcome === 'limited') use = await attempt(at);
  }
  if (!('outcome' in use)) throw new UnavailableError(undefined, 1, 'dynamodb');
  return use;
}

/**
 * The UpdateItem of one use (useKey), exported for the benchmark's reference of the same shape;
 * `staleWindow`: the minute a stale slot counts, which this use starts afresh.
 */
export function keyUseUpdate(keyHash: string, nowMs: number, defaultLimit: number, staleWindow?: string): UpdateCommandInput {
  const { names, remove } = useParts(nowMs);
  const minute = utcMinute(nowMs);
  const nowIso = new Date(nowMs).toISOString();
  const values = { ':true': true, ':nullType': 'NULL', ':nowIso': nowIso, ':zero': 0, ':one': 1, ':minute': minute };
  const counted = `#d = if_not_exists(#d, :zero) + :one, #win = :minute`;
  const input =
    staleWindow === undefined
      ? {
          // The minute's count: a new slot starts at 0; the first use of the minute sets last_used_at.
          // Monotonic: never on a guard counting a later minute (its slot would be removed, its count lost).
          UpdateExpression: `SET #n = if_not_exists(#n, :zero) + :one, #t = if_not_exists(#t, :nowIso), last_used_at = if_not_exists(#t, :nowIso), ${counted}${remove}`,
          ConditionExpression: `${USABLE} AND (attribute_not_exists(#win) OR #win <= :minute) AND (attribute_not_exists(#n) OR (#win = :minute AND (#n < rate_limit_per_minute OR (attribute_not_exists(rate_limit_per_minute) AND #n < :defaultLimit))))`,
          ExpressionAttributeValues: { ...values, ':defaultLimit': defaultLimit },
        }
      : {
          // The slot counts a minute MINUTE_SLOTS (or a multiple) ago: this use starts it afresh.
          UpdateExpression: `SET #n = :one, #t = :nowIso, last_used_at = :nowIso, ${counted}${remove}`,
          ConditionExpression: `${USABLE} AND #win = :stale`,
          ExpressionAttributeValues: { ...values, ':stale': staleWindow },
        };
  return {
    TableName: TABLE(),
    Key: keyRecordKeys.hashGuard(keyHash),
    ...input,
    ExpressionAttributeNames: names,
    ReturnValues: 'ALL_NEW',
    ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
  };
}

/**
 * Stores the minute's `key.rate_limited` event (the `event` item) together with the guard's mark of
 * it, in one transaction conditioned on the mark not being there: once per key and minute, whatever
 * the number of concurrent refusals, and a retry of a transaction that had been applied stores
 * nothing more. Returns false when another refusal stored it first (or the key is gone).
 */
export async function storeLimitEvent(keyHash: string, nowMs: number, event: TransactItem): Promise<boolean> {
  try {
    await retryTransient(() =>
      transactWrite([
      {
        Update: {
          TableName: TABLE(),
          Key: keyRecordKeys.hashGuard(keyHash),
          UpdateExpression: 'SET #rla = :minute',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#rla) OR #rla <> :minute)',
          ExpressionAttributeNames: { '#rla': guardUseAttributes.limitAudited },
          ExpressionAttributeValues: { ':minute': utcMinute(nowMs) },
        },
      },
        event,
      ]),
    );
    return true;
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') return false;
    throw error;
  }
}

/**
 * The admitted requests of the key with hash `keyHash` per UTC day (epoch day → count) from its
 * guard's day counters: one GetItem (eventually consistent: a request of the last second may show a
 * moment later). Empty when the key is gone.
 */
export async function readGuardUsage(keyHash: string): Promise<Map<number, number>> {
  const { Item } = await db.send(new GetCommand({ TableName: TABLE(), Key: keyRecordKeys.hashGuard(keyHash) }));
  const days = new Map<number, number>();
  for (const [name, value] of Object.entries((Item ?? {}) as Record<string, NativeAttributeValue>)) {
    const match = /^u(\d+)$/.exec(name);
    if (match) days.set(Number(match[1]), Number(value));
  }
  return days;
}

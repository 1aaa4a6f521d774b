import { isIPv4, isIPv6 } from 'node:net';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableNames } from '../db/client.js';
import { retryTransient } from '../db/failures.js';
import { cancellationCode, type TransactItem } from '../db/transact.js';
import { RateLimitedError } from '../errors.js';
import { logger } from '../logger.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const rateWindowKeys = {
  /** A fixed-window counter for rate limits, with a TTL: e.g. rateWindow('sms-phone', phone, 'h', 493812). */
  rateWindow: (limit: string, subject: string, window: string) => ({ pk: `RATE#${limit}#${subject}`, sk: window }),
};


/**
 * A fixed-window limit: at most `max` events per `windowSeconds` for one subject (a phone, an IP,
 * an account). Windows are aligned to the epoch; a counter item per window, removed by DynamoDB TTL.
 * Fixed windows allow up to 2 x max around a boundary; that is accepted for these limits.
 */
export interface RateLimit {
  name: string;
  subject: string;
  windowSeconds: number;
  max: number;
  /** What the 429 says, e.g. "Too many codes requested for this phone number". */
  message: string;
}

/** The 8 groups of an IPv6 address that isIPv6 accepted (`::` expanded, a trailing dotted IPv4 as two groups). */
function ipv6Groups(address: string): number[] {
  const toGroups = (part: string) =>
    part === ''
      ? []
      : part.split(':').flatMap((g) => {
          if (!g.includes('.')) return [parseInt(g, 16)];
          const [a, b, c, d] = g.split('.').map(Number) as [number, number, number, number];
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = '', tail] = address.split('::');
  const front = toGroups(head);
  const back = tail === undefined ? [] : toGroups(tail);
  return [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/**
 * The network a caller's address is counted in (docs/hub-api.md, "gen_code"): an IPv4 address as
 * itself; an IPv6 address by its /64, the prefix one subscriber is given and picks fresh addresses
 * from at will (temporary addresses), so rotating them does not escape a per-IP window; an
 * IPv4-mapped IPv6 address (`::ffff:203.0.113.7`) as its IPv4 address. Anything else as given.
 */
export function networkOf(ip: string): string {
  const address = ip
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/%.*$/, '');
  if (isIPv4(address) || !isIPv6(address)) return address;
  const groups = ipv6Groups(address);
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6]!, groups[7]!];
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

const windowOf = (limit: RateLimit, nowMs: number) => Math.floor(nowMs / 1000 / limit.windowSeconds);

export function secondsUntilWindowEnds(limit: RateLimit, nowMs: number): number {
  return (windowOf(limit, nowMs) + 1) * limit.windowSeconds - nowMs / 1000;
}

/** The key of the window item of `limit` at `nowMs` (to read it ahead, e.g. with other items in one BatchGet). */
export function windowKey(limit: RateLimit, nowMs: number) {
  return rateWindowKeys.rateWindow(limit.name, limit.subject, `${limit.windowSeconds}s#${windowOf(limit, nowMs)}`);
}

/** Whether the window of `nowMs` is already full (a read ahead of a write that cannot be undone; the write's own condition stays the arbiter). */
export async function rateWindowFull(limit: RateLimit, nowMs: number): Promise<boolean> {
  const out = await db.send(new GetCommand({ TableName: tableNames.hub, Key: windowKey(limit, nowMs), ConsistentRead: true }));
  return ((out.Item?.n as number | undefined) ?? 0) >= limit.max;
}

/**
 * One counted event as a transaction item: the condition refuses the event once the window is full,
 * so a refused event consumes nothing and can be combined with the write it guards.
 */
export function rateLimitItem(limit: RateLimit, nowMs: number): TransactItem {
  const expires = (windowOf(limit, nowMs) + 1) * limit.windowSeconds + 60;
  return {
    Update: {
      TableName: tableNames.hub,
      Key: windowKey(limit, nowMs),
      UpdateExpression: 'SET #ttl = :ttl ADD n :one',
      ConditionExpression: 'attribute_not_exists(n) OR n < :max',
      ExpressionAttributeNames: { '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':ttl': expires, ':one': 1, ':max': limit.max },
    },
  };
}

/**
 * The 429 for a cancelled transaction whose items `firstIndex..` are `limits` (in that order), or
 * undefined when none of them refused. The Retry-After is the longest wait among the full windows.
 */
export function rateLimitedError(error: unknown, limits: RateLimit[], firstIndex: number, nowMs: number): RateLimitedError | undefined {
  const refused = limits.filter((_, i) => cancellationCode(error, firstIndex + i) === 'ConditionalCheckFailed');
  if (refused.length === 0) return undefined;
  const worst = refused.reduce((a, b) => (secondsUntilWindowEnds(b, nowMs) > secondsUntilWindowEnds(a, nowMs) ? b : a));
  return new RateLimitedError(worst.message, secondsUntilWindowEnds(worst, nowMs));
}

/**
 * Gives back an event counted at `nowMs` (its guarded action did not happen, e.g. the SMS failed).
 * It runs right after a failure: transient errors are retried, and a refund that still fails is
 * logged and left (the caller's answer stays the original failure).
 */
export async function refundRateLimits(limits: RateLimit[], nowMs: number): Promise<void> {
  await Promise.all(
    limits.map((limit) =>
      retryTransient(() =>
        db.send(
          new UpdateCommand({
            TableName: tableNames.hub,
            Key: windowKey(limit, nowMs),
            UpdateExpression: 'ADD n :minus',
            ConditionExpression: 'n > :zero',
            ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
          }),
        ),
      ).catch((error: Error) => {
        if (!isConditionalCheckFailed(error)) logger.warn('rate limit refund failed', { limit: limit.name, errorName: error.name });
      }),
    ),
  );
}

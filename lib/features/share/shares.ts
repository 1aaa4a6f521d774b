import type { UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { accountKeys } from '../../entities/accounts/accounts.js';
import { tableNames } from '../../platform/db/client.js';
import { itemParser } from '../../platform/db/item-check.js';
import { timeKey } from '../../platform/db/keys.js';
import { unguessableBase62 } from '../../platform/ids.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const shareKeys = {
  /** A share: one per (sharer, video, UTC day), with a TTL (lib/features/share/shares.ts). */
  share: (shareid: string) => ({ pk: `SHARE#${shareid}`, sk: 'SHARE' }),
  /**
   * The shares made with an account's credential, oldest first. gsi2: SHARER#openid /
   * created_at#shareid, only on shares that store their sharer's `openid` (the index is sparse):
   * the account's data export lists them, its erasure finds them.
   */
  sharerIndex: (openid: string, createdAt: string, shareid: string) => ({ gsi2pk: `SHARER#${openid}`, gsi2sk: timeKey(createdAt, shareid) }),
  sharerPartition: (openid: string) => `SHARER#${openid}`,
  /**
   * The day's share of a sharer and video (`dailyShareItem`): an account's in its own partition (its
   * erasure removes it with the partition), a device's or a network's in one of their own.
   */
  daily: (sharer: Sharer, vid: string, day: string) =>
    sharer.kind === 'account'
      ? { pk: accountKeys.account(sharer.openid).pk, sk: `SHARED#${vid}#${day}` }
      : { pk: `SHARED#${sharer.kind === 'device' ? `d#${sharer.d}` : `n#${sharer.network}`}`, sk: `${vid}#${day}` },
};

/** The id of the share whose pk is `pk`. */
export const shareIdOf = (pk: string): string => pk.slice(shareKeys.share('').pk.length);

/**
 * A share (docs/data-model.md, the Share item): written by sharetext, read by the share page and by
 * get_next_list's `shareid`. One per (sharer, video, UTC day), kept by the day's index item
 * (`shareKeys.daily`) written in the same transaction; its id is random.
 */

/**
 * A share lives 30 days after it was made, or after its last open by a person (each open moves its
 * expiry): a link nobody opens goes away (DynamoDB TTL on `ttl`), a link in use keeps working.
 */
export const SHARE_LIFETIME_S = 30 * 86_400;

/**
 * Whose share of the day it is: the signed-in account, else the device (`d`), else the caller's
 * network (lib/platform/limits/rate-windows.ts networkOf). Only an account is stored on the share (`openid`).
 */
export type Sharer = { kind: 'account'; openid: string } | { kind: 'device'; d: string } | { kind: 'network'; network: string };

export interface StoredShare {
  shareid: string;
  vid: string;
  /** The video's author, so that the share page reads the video and its author in one request. */
  author_openid: string;
  /** The sharer, only when authenticated as that account. */
  openid?: string;
  d?: string;
  locale?: string;
  country?: string;
  created_at: string;
  /** Epoch seconds after which the share is gone. */
  ttl: number;
}

/**
 * A new share id: 20 characters of [A-Za-z0-9] from crypto randomness, 119 bits: with a billion live
 * shares, a guess finds one with a chance of 1 in 7 * 10^26.
 */
export const newShareId = () => unguessableBase62(20);

/** What the share page looks up: a share id of today (20 characters) or of before (12, derived; they live until they expire). */
export const isShareIdShape = (id: string) => /^(?:[A-Za-z0-9]{20}|[A-Za-z0-9]{12})$/.test(id);

/** The UTC day of `nowMs`, `YYYY-MM-DD`. */
export const utcDay = (nowMs: number) => new Date(nowMs).toISOString().slice(0, 10);

/**
 * The day's index item of a sharer and video: the id of its share. Put with `attribute_not_exists`
 * in the share's transaction, so a repeat the same UTC day finds it and makes no second share. It
 * expires a day after its day (DynamoDB TTL); its key names the day, so an old one never collides.
 */
export function dailyShareItem(sharer: Sharer, vid: string, nowMs: number, shareid: string) {
  const dayStart = Math.floor(nowMs / 86_400_000) * 86_400_000;
  return { ...shareKeys.daily(sharer, vid, utcDay(nowMs)), entity: 'share_day', shareid, ttl: (dayStart + 2 * 86_400_000) / 1000 };
}

/** The checked parse of a sharer's daily share item (dailyShareItem). */
export const shareDayFromItem = itemParser<{ shareid: string }>('share day', { entity: 'share_day', required: { shareid: 'string' } });

/** The expiry of a share made or opened at `nowMs`. */
export const shareExpiry = (nowMs: number) => Math.ceil(nowMs / 1000) + SHARE_LIFETIME_S;

/**
 * Whether the share is past its expiry: DynamoDB removes expired items within a few days, not at
 * once, so readers check the time themselves.
 */
export const shareExpired = (share: Pick<StoredShare, 'ttl'>, nowMs: number) => share.ttl * 1000 <= nowMs;

/** The stored item: an account's share also carries its place in the sharer index. */
export function shareItem(share: StoredShare) {
  const sharer = share.openid === undefined ? {} : shareKeys.sharerIndex(share.openid, share.created_at, share.shareid);
  return { ...shareKeys.share(share.shareid), ...sharer, entity: 'share', ...share };
}

/** The share without its sharer `openid`, out of the sharer index (an erasure): refused when the share is not (or no longer) theirs. */
export const sharerRemoval = (shareid: string, openid: string): UpdateCommandInput => ({
  TableName: tableNames.hub,
  Key: shareKeys.share(shareid),
  UpdateExpression: 'REMOVE openid, gsi2pk, gsi2sk',
  ConditionExpression: 'openid = :me',
  ExpressionAttributeValues: { ':me': openid },
});

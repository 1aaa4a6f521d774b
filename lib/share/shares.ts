import { createHash } from 'node:crypto';
import { timeKey } from '../db/keys.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const shareKeys = {
  /** A share: one per (sharer, video, UTC day), with a TTL (lib/share/shares.ts). */
  share: (shareid: string) => ({ pk: `SHARE#${shareid}`, sk: 'SHARE' }),
  /**
   * The shares made with an account's credential, oldest first. gsi2: SHARER#openid /
   * created_at#shareid, only on shares that store their sharer's `openid` (the index is sparse):
   * the account's data export lists them, its erasure finds them.
   */
  sharerIndex: (openid: string, createdAt: string, shareid: string) => ({ gsi2pk: `SHARER#${openid}`, gsi2sk: timeKey(createdAt, shareid) }),
  sharerPartition: (openid: string) => `SHARER#${openid}`,
};

/** The id of the share whose pk is `pk`. */
export const shareIdOf = (pk: string): string => pk.slice(shareKeys.share('').pk.length);

/**
 * A share (docs/data-model.md, the Share item): written by sharetext, read by the share page and by
 * get_next_list's `shareid`. One per (sharer, video, UTC day), so its id is derived from them.
 */

/**
 * A share lives 30 days after it was made, or after its last open by a person (each open moves its
 * expiry): a link nobody opens goes away (DynamoDB TTL on `ttl`), a link in use keeps working.
 */
export const SHARE_LIFETIME_S = 30 * 86_400;

/**
 * Who a share is counted for: the signed-in account, else the device (`d`), else the caller's IP.
 * Only an account is stored as the sharer (`openid`); a device or an IP only makes the id.
 */
export type Sharer = { kind: 'account'; openid: string } | { kind: 'device'; d: string } | { kind: 'ip'; ip: string };

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

/** 12 letters and digits, the same for every share of one sharer, video and UTC day. */
export function shareIdFor(sharer: Sharer, vid: string, nowMs: number): string {
  const who = sharer.kind === 'account' ? `a:${sharer.openid}` : sharer.kind === 'device' ? `d:${sharer.d}` : `ip:${sharer.ip}`;
  const day = new Date(nowMs).toISOString().slice(0, 10);
  return createHash('sha256').update(`${who}\n${vid}\n${day}`).digest('base64url').replace(/[-_]/g, '').slice(0, 12);
}

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

import { itemParser } from '../../platform/db/item-check.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../../platform/db/client.js';
import type { TransactItem } from '../../platform/db/transact.js';

/**
 * The block items (docs/moderation.md, "Blocking"; docs/data-model.md, "Access patterns"): their
 * keys, the list's reads and the checks other writes put in their transactions. The use cases that
 * change blocks are in lib/entities/social/blocks.ts; follow_user's transaction checks a block through this
 * module, so follows and blocks do not import each other.
 */
const TABLE = () => tableNames.hub;

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const blockKeys = {
  /**
   * The accounts `openid` blocked: ONE item, `blocked` a map openid -> blocked_at, `version` for
   * optimistic writes. Its sort key sorts right before the feed state (`FOLLOWS!FEED`), so
   * get_next_list reads it with the Query it already makes (lib/features/recommend/sources.ts).
   */
  blockList: (openid: string) => ({ pk: `ACCOUNT#${openid}`, sk: 'FOLLOWS!BLOCKS' }),
  /** The reverse index: `blocker` blocked `blocked` (found in the blocked account's partition by the erasure). */
  blockedBy: (blocked: string, blocker: string) => ({ pk: `ACCOUNT#${blocked}`, sk: `BLOCKEDBY#${blocker}` }),
  blockedByPrefix: 'BLOCKEDBY#',
  /**
   * The block follows the person (docs/moderation.md, "Blocking"): `blocker` blocked the person
   * `person` (lib/entities/accounts/accounts.ts personIdOf), whose account is now `blocked`. Written and
   * removed with the block; an account created again with that phone takes the block over
   * (reapplyBlocks).
   */
  personBlockedBy: (person: string, blocker: string) => ({ pk: `PERSON#${person}`, sk: `BLOCKEDBY#${blocker}` }),
};

export interface BlockListItem {
  blocked?: Record<string, string>;
  /** openid -> the person id of the blocked account (absent for blocks made before person ids: those cannot follow the person). */
  persons?: Record<string, string>;
  version?: number;
}

/** The checked parse of a block-list item. */
export const blockListFromItem = itemParser<BlockListItem>('block list', { entity: 'blocks', optional: { blocked: 'map', persons: 'map', version: 'number' } });

/** The openids a block-list item holds (empty when there is none). */
export const blockedIn = (item: Record<string, unknown> | undefined): Set<string> => new Set(Object.keys(blockListFromItem(item)?.blocked ?? {}));

/** The accounts `openid` blocked, one GetItem. */
export async function blockedBy(openid: string): Promise<Set<string>> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: blockKeys.blockList(openid) }));
  return blockedIn(out.Item);
}

/** A transaction item that fails when `blocker` has blocked `other` (follow_user, comment_set: docs/moderation.md, "Blocking"). */
export const notBlockedCheck = (blocker: string, other: string): TransactItem => ({
  ConditionCheck: {
    TableName: TABLE(),
    Key: blockKeys.blockList(blocker),
    ConditionExpression: 'attribute_not_exists(#b.#o)',
    ExpressionAttributeNames: { '#b': 'blocked', '#o': other },
  },
});

/**
 * A transaction item that fails when `blocker` has blocked `other`, checked on the reverse index item
 * in `other`'s partition: block_user and unblock_user write it in the list's transaction, so it holds
 * exactly when the list holds `other`. comment_set checks this one: a ConditionCheck is billed as a
 * write, and a popular author's partition would take one for every comment on their videos
 * (docs/performance.md, "Hotspots at 100x"); the commenter's own partition takes it instead.
 */
export const notBlockedByCheck = (blocker: string, other: string): TransactItem => ({
  ConditionCheck: {
    TableName: TABLE(),
    Key: blockKeys.blockedBy(other, blocker),
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

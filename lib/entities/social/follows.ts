import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../platform/clock.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { pad, timeKey } from '../../platform/db/keys.js';
import { accountKeys, LIVE_ACCOUNT } from '../accounts/accounts.js';
import { afterCommit, retryTransient, wasRefused } from '../../platform/db/failures.js';
import { cancellationCode, retryOnConflict, transactWrite } from '../../platform/db/transact.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { blockedIn, blockKeys, notBlockedCheck } from './block-items.js';
import { logger } from '../../platform/logger.js';
import { isDeleted, publicUser, requireAccount, type Account, type PublicUser } from '../accounts/accounts.js';
import type * as z from '../../platform/zod.js';
import type { followResultSchema, relationPageSchema } from './follow-schema.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const followKeys = {
  /**
   * follower -> followee. gsi1: FOLLOWING#follower / relation#followee, where `relation` is the
   * relation number pad(seq) the follower's account handed out (newest = highest), so get_follow
   * reads any `offset` with one Query (see lib/entities/social/follows.ts).
   */
  follows: (follower: string, followee: string) => ({ pk: `ACCOUNT#${follower}`, sk: `FOLLOWS#${followee}` }),
  followingIndex: (follower: string, relation: string, followee: string) => ({ gsi1pk: `FOLLOWING#${follower}`, gsi1sk: timeKey(relation, followee) }),
  /** followee <- follower (the same relation seen from the other side). gsi1: FOLLOWERS#followee / relation#follower (the followee's numbering). */
  followedBy: (followee: string, follower: string) => ({ pk: `ACCOUNT#${followee}`, sk: `FOLLOWER#${follower}` }),
  followersIndex: (followee: string, relation: string, follower: string) => ({ gsi1pk: `FOLLOWERS#${followee}`, gsi1sk: timeKey(relation, follower) }),
  /** The sort-key prefixes of both sides in an account's partition (the data export reads each range). */
  followsPrefix: 'FOLLOWS#',
  followerPrefix: 'FOLLOWER#',
};

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const followPartitions = {
  following: (openid: string) => followKeys.followingIndex(openid, '', '').gsi1pk,
};


/**
 * Follow relations. Each relation is stored twice (follower side, followee side) and both
 * accounts' counters change in the same transaction. Each side is numbered: the follower's account
 * hands out `follow_seq`, the followee's `follower_seq` (atomic ADD; a number whose follow is then
 * refused is given back when no later follow took the next one, else skipped). The lists sort by that number, newest first, so `offset` maps to a
 * key bound and any page costs one Query.
 */
const FOLLOW_PAGE_SIZE = 20;
const TABLE = () => tableNames.hub;

interface RelationItem {
  follower: string;
  followee: string;
  seq: number;
  followed_at: string;
}

export type FollowResult = z.output<typeof followResultSchema>;

function notSelf(follower: string, followee: string) {
  if (follower === followee) throw new ValidationError('Invalid parameter "follow_user": you cannot follow or unfollow yourself');
}

async function isFollowing(follower: string, followee: string): Promise<boolean> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: followKeys.follows(follower, followee), ConsistentRead: true, ProjectionExpression: 'pk' }));
  return out.Item !== undefined;
}

async function followerCount(openid: string): Promise<number> {
  const account = await requireAccount(openid);
  return account.follower_count ?? 0;
}

/** The followee's follower_count after a follow (+1) or unfollow (-1) committed: read again, or counted from the read before. */
function countAfterCommit(followee: Account, delta: 1 | -1): Promise<number> {
  return afterCommit('follower_count', () => followerCount(followee.openid), () => Math.max(0, (followee.follower_count ?? 0) + delta));
}

async function nextNumber(openid: string, counter: 'follow_seq' | 'follower_seq'): Promise<number> {
  try {
    const out = await retryOnConflict(() =>
      db.send(
        new UpdateCommand({
          TableName: TABLE(),
          Key: accountKeys.account(openid),
          UpdateExpression: 'ADD #c :one',
          // Never on a deleted account: its tombstone stays bare (docs/accounts.md, "Erasure").
          ConditionExpression: LIVE_ACCOUNT,
          ExpressionAttributeNames: { '#c': counter },
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    );
    return Number(out.Attributes?.[counter]);
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
    throw error;
  }
}

/**
 * Gives back relation number `n` taken for a follow that was not written, unless a later follow
 * took the next one (then the number stays skipped: numbers must never repeat). Retried, as it runs
 * right after a failure; if it still fails the number stays skipped too.
 */
async function releaseNumber(openid: string, counter: 'follow_seq' | 'follower_seq', n: number): Promise<void> {
  await retryTransient(() =>
    db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: accountKeys.account(openid),
        UpdateExpression: 'ADD #c :minus',
        ConditionExpression: '#c = :n',
        ExpressionAttributeNames: { '#c': counter },
        ExpressionAttributeValues: { ':minus': -1, ':n': n },
      }),
    ),
  ).catch((error: Error) => {
    if (!isConditionalCheckFailed(error)) logger.warn('relation number not given back', { counter, errorName: error.name });
  });
}

const counterUpdate = (openid: string, counter: 'follow_count' | 'follower_count', delta: 1 | -1) => ({
  Update: {
    TableName: TABLE(),
    Key: accountKeys.account(openid),
    UpdateExpression: 'ADD #c :delta',
    // A new relation never reaches a deleted account (its erasure may have ended its relations already).
    ConditionExpression: delta > 0 ? LIVE_ACCOUNT : 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#c': counter },
    ExpressionAttributeValues: { ':delta': delta },
  },
});

/**
 * The two items of one follow relation: the follower's side, numbered `mine` among the follower's
 * relations, and the followee's side, numbered `theirs` among the followee's (see get_follow paging).
 */
export function relationItems(follower: string, followee: string, at: string, mine: number, theirs: number) {
  const relation = { entity: 'follow', follower, followee, followed_at: at };
  return [
    { ...followKeys.follows(follower, followee), ...followKeys.followingIndex(follower, pad(mine), followee), ...relation, seq: mine },
    { ...followKeys.followedBy(followee, follower), ...followKeys.followersIndex(followee, pad(theirs), follower), ...relation, seq: theirs },
  ] as const;
}

/**
 * follow_user: idempotent; self 400; unknown followee 404. The two relation numbers are taken
 * first (atomic ADDs, so hot accounts never contend inside the transaction); when the relation is
 * then not written, numbers DynamoDB refused to use are given back (releaseNumber), so a 503 leaves
 * nothing behind. After a timeout nobody knows whether the write was applied: its numbers stay
 * skipped (a gap, never a repeat).
 */
export async function follow(follower: string, followee: string): Promise<FollowResult> {
  notSelf(follower, followee);
  const target = await requireAccount(followee);
  if (await isFollowing(follower, followee)) return { follow_user: followee, following: true, follower_count: await followerCount(followee) };

  const [taken, given] = await Promise.allSettled([nextNumber(follower, 'follow_seq'), nextNumber(followee, 'follower_seq')]);
  if (taken.status === 'rejected' || given.status === 'rejected') {
    await Promise.all([
      taken.status === 'fulfilled' ? releaseNumber(follower, 'follow_seq', taken.value) : undefined,
      given.status === 'fulfilled' ? releaseNumber(followee, 'follower_seq', given.value) : undefined,
    ]);
    throw taken.status === 'rejected' ? taken.reason : (given as PromiseRejectedResult).reason;
  }
  const [mine, theirs] = [taken.value, given.value];
  const at = clock.nowIso();
  const [followsItem, followedByItem] = relationItems(follower, followee, at, mine, theirs);
  try {
    await transactWrite([
      {
        Put: {
          TableName: TABLE(),
          Item: followsItem,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: TABLE(),
          Item: followedByItem,
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      counterUpdate(follower, 'follow_count', 1),
      counterUpdate(followee, 'follower_count', 1),
      notBlockedCheck(followee, follower),
      notBlockedCheck(follower, followee),
    ]);
  } catch (error) {
    if (wasRefused(error)) await Promise.all([releaseNumber(follower, 'follow_seq', mine), releaseNumber(followee, 'follower_seq', theirs)]);
    // A parallel identical request won: the relation exists, which is what was asked.
    const lost = cancellationCode(error, 0) === 'ConditionalCheckFailed' || cancellationCode(error, 1) === 'ConditionalCheckFailed';
    if (lost) return { follow_user: followee, following: true, follower_count: await followerCount(followee) };
    if (cancellationCode(error, 2) === 'ConditionalCheckFailed') throw new NotFoundError('Your account does not exist');
    if (cancellationCode(error, 3) === 'ConditionalCheckFailed') throw new NotFoundError(`User "${followee.slice(0, 64)}" does not exist`);
    // Blocks (docs/moderation.md, "Blocking"): the message to the blocked account does not say why.
    if (cancellationCode(error, 4) === 'ConditionalCheckFailed') throw new ForbiddenError('You cannot follow this user');
    if (cancellationCode(error, 5) === 'ConditionalCheckFailed') throw new ForbiddenError('You blocked this user: unblock them (do=unblock_user) to follow them');
    throw error;
  }
  return { follow_user: followee, following: true, follower_count: await countAfterCommit(target, 1) };
}

/** unfollow_user: idempotent; self 400; unknown followee 404. */
export async function unfollow(follower: string, followee: string): Promise<FollowResult> {
  notSelf(follower, followee);
  const target = await requireAccount(followee);
  try {
    await transactWrite([
      { Delete: { TableName: TABLE(), Key: followKeys.follows(follower, followee), ConditionExpression: 'attribute_exists(pk)' } },
      { Delete: { TableName: TABLE(), Key: followKeys.followedBy(followee, follower), ConditionExpression: 'attribute_exists(pk)' } },
      counterUpdate(follower, 'follow_count', -1),
      counterUpdate(followee, 'follower_count', -1),
    ]);
  } catch (error) {
    // Not following (any more): nothing to undo.
    if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') throw error;
    return { follow_user: followee, following: false, follower_count: await followerCount(followee) };
  }
  return { follow_user: followee, following: false, follower_count: await countAfterCommit(target, -1) };
}

/** The relation (follower, followee) that an item of `openid`'s partition is a side of, if it is one. */
export function relationOfItem(openid: string, sk: string): [follower: string, followee: string] | undefined {
  const following = followKeys.follows(openid, '').sk;
  const followedBy = followKeys.followedBy(openid, '').sk;
  if (sk.startsWith(following)) return [openid, sk.slice(following.length)];
  if (sk.startsWith(followedBy)) return [sk.slice(followedBy.length), openid];
  return undefined;
}

/**
 * Ends a relation whatever the state of either account (the erasure of a deleted account,
 * lib/features/deletion/erasure.ts): both sides and both counters in one transaction, a counter left out when
 * its account item no longer exists; a side found alone is removed alone. Idempotent: false when
 * there was no relation to end.
 */
export async function endRelation(follower: string, followee: string): Promise<boolean> {
  const sides = [
    { Delete: { TableName: TABLE(), Key: followKeys.follows(follower, followee), ConditionExpression: 'attribute_exists(pk)' } },
    { Delete: { TableName: TABLE(), Key: followKeys.followedBy(followee, follower) } },
  ];
  let counters = [counterUpdate(follower, 'follow_count', -1), counterUpdate(followee, 'follower_count', -1)];
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await transactWrite([...sides, ...counters]);
      return true;
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') {
        // No follower side: at most a followee side left alone, removed without counting.
        await transactWrite([sides[1]!]);
        return false;
      }
      const gone = counters.filter((_, i) => cancellationCode(error, i + 2) === 'ConditionalCheckFailed');
      if (gone.length === 0) throw error;
      counters = counters.filter((c) => !gone.includes(c));
    }
  }
  throw Object.assign(new Error('ending a relation kept conflicting'), { name: 'TransactionConflictException' });
}

/** followed_by_me / follows_me of `others` as seen by `viewer`, with one BatchGet. */
export async function relationsOf(viewer: string, others: string[]): Promise<Map<string, { followed_by_me: boolean; follows_me: boolean }>> {
  const candidates = others.filter((o) => o !== viewer);
  const found = await batchGetHubItems(candidates.flatMap((o) => [followKeys.follows(viewer, o), followKeys.follows(o, viewer)]));
  return new Map(
    others.map((o) => [
      o,
      { followed_by_me: found.has(itemId(followKeys.follows(viewer, o))), follows_me: found.has(itemId(followKeys.follows(o, viewer))) },
    ]),
  );
}

/**
 * Users in list shape, in order, with one BatchGet for their accounts, the viewer's relations and
 * the viewer's block list: accounts the viewer blocked are left out (docs/moderation.md, "Blocking").
 */
async function publicUsers(viewer: string, openids: string[]): Promise<PublicUser[]> {
  const others = openids.filter((o) => o !== viewer);
  const found = await batchGetHubItems<Record<string, unknown>>([
    ...openids.map((o) => accountKeys.account(o)),
    ...others.flatMap((o) => [followKeys.follows(viewer, o), followKeys.follows(o, viewer)]),
    blockKeys.blockList(viewer),
  ]);
  const blocked = blockedIn(found.get(itemId(blockKeys.blockList(viewer))));
  return openids.flatMap((o) => {
    const account = found.get(itemId(accountKeys.account(o))) as Account | undefined;
    if (!account || isDeleted(account) || blocked.has(o)) return [];
    return [
      publicUser(account, {
        followed_by_me: o !== viewer && found.has(itemId(followKeys.follows(viewer, o))),
        follows_me: o !== viewer && found.has(itemId(followKeys.follows(o, viewer))),
      }),
    ];
  });
}

export type RelationPage = z.output<typeof relationPageSchema>;

/**
 * One page of the users `openid` follows (`following`) or is followed by (`followers`), newest
 * relation first, from `offset`. `offset` counts relation numbers down from the newest; without
 * unfollows in between it is exactly the position in the list. Use the answer's `next_offset`.
 */
export async function relationPage(side: 'following' | 'followers', openid: string, offset: number, viewer: string): Promise<RelationPage> {
  const account = await requireAccount(openid);
  const newest = (side === 'following' ? account.follow_seq : account.follower_seq) ?? 0;
  const total = Math.max(0, (side === 'following' ? account.follow_count : account.follower_count) ?? 0);
  const highest = newest - offset;
  if (highest < 1 || total === 0) return { list: [], total, next_offset: -1 };

  const partition = side === 'following' ? followKeys.followingIndex(openid, '', '').gsi1pk : followKeys.followersIndex(openid, '', '').gsi1pk;
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :below',
      ExpressionAttributeValues: { ':pk': partition, ':below': pad(highest + 1) },
      ScanIndexForward: false,
      Limit: FOLLOW_PAGE_SIZE + 1,
    }),
  );
  const items = (out.Items ?? []) as RelationItem[];
  const page = items.slice(0, FOLLOW_PAGE_SIZE);
  const users = await publicUsers(viewer, page.map((r) => (side === 'following' ? r.followee : r.follower)));
  const last = page[page.length - 1];
  return { list: users, total, next_offset: items.length > FOLLOW_PAGE_SIZE && last ? newest - last.seq + 1 : -1 };
}

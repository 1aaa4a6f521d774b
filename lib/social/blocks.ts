import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../clock.js';
import { batchGetHubItems, batchWriteHubItems, itemId } from '../db/batch.js';
import { db, isConditionalCheckFailed, tableNames } from '../db/client.js';
import { cancellationCode, transactWrite, type TransactItem } from '../db/transact.js';
import { LimitExceededError, NotFoundError, UnavailableError, ValidationError } from '../errors.js';
import { accountKeys, isDeleted, LIVE_ACCOUNT, requireAccount, type Account } from '../accounts/accounts.js';
import { followKeys } from './follows.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const blockKeys = {
  /**
   * The accounts `openid` blocked: ONE item, `blocked` a map openid -> blocked_at, `version` for
   * optimistic writes. Its sort key sorts right before the feed state (`FOLLOWS!FEED`), so
   * get_next_list reads it with the Query it already makes (lib/recommend/sources.ts).
   */
  blockList: (openid: string) => ({ pk: `ACCOUNT#${openid}`, sk: 'FOLLOWS!BLOCKS' }),
  /** The reverse index: `blocker` blocked `blocked` (found in the blocked account's partition by the erasure). */
  blockedBy: (blocked: string, blocker: string) => ({ pk: `ACCOUNT#${blocked}`, sk: `BLOCKEDBY#${blocker}` }),
  blockedByPrefix: 'BLOCKEDBY#',
};

/** The most accounts one account may block: the list is one item, read whole by every feed call (docs/moderation.md, "Blocking"). */
export const MAX_BLOCKS = 1000;
const PAGE_SIZE = 20;
const TABLE = () => tableNames.hub;

interface BlockListItem {
  blocked?: Record<string, string>;
  version?: number;
}

export interface BlockResult {
  block_user: string;
  blocked: boolean;
}

/** The openids a block-list item holds (empty when there is none). */
export const blockedIn = (item: Record<string, unknown> | undefined): Set<string> => new Set(Object.keys((item as BlockListItem | undefined)?.blocked ?? {}));

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

function notSelf(openid: string, other: string) {
  if (openid === other) throw new ValidationError('Invalid parameter "block_user": you cannot block or unblock yourself');
}

const readList = async (openid: string) =>
  (await db.send(new GetCommand({ TableName: TABLE(), Key: blockKeys.blockList(openid), ConsistentRead: true }))).Item as BlockListItem | undefined;

const exists = async (key: { pk: string; sk: string }) =>
  (await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true, ProjectionExpression: 'pk' }))).Item !== undefined;

/** The list item written back with `blocked`, conditional on the version read (none: the item must not exist). */
function listWrite(openid: string, read: BlockListItem | undefined, blocked: Record<string, string>): TransactItem {
  const condition = read
    ? { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': read.version ?? 0 } }
    : { ConditionExpression: 'attribute_not_exists(pk)' };
  if (Object.keys(blocked).length === 0) return { Delete: { TableName: TABLE(), Key: blockKeys.blockList(openid), ...condition } };
  return { Put: { TableName: TABLE(), Item: { ...blockKeys.blockList(openid), entity: 'blocks', openid, blocked, version: (read?.version ?? 0) + 1 }, ...condition } };
}

/** An account item's follow counters moved by `deltas` (none: only checked), conditional on `condition`. */
function accountWrite(openid: string, deltas: { follow_count: number; follower_count: number }, condition: string): TransactItem {
  const moved = Object.entries(deltas).filter(([, d]) => d !== 0);
  if (moved.length === 0) return { ConditionCheck: { TableName: TABLE(), Key: accountKeys.account(openid), ConditionExpression: condition } };
  return {
    Update: {
      TableName: TABLE(),
      Key: accountKeys.account(openid),
      UpdateExpression: `ADD ${moved.map(([c]) => `${c} :${c}`).join(', ')}`,
      ConditionExpression: condition,
      ExpressionAttributeValues: Object.fromEntries(moved.map(([c, d]) => [`:${c}`, d])),
    },
  };
}

/** The follow `follower` -> `followee` ended when it exists, or checked still absent (the state the block read). */
function relationWrites(follower: string, followee: string, following: boolean): TransactItem[] {
  if (!following) return [{ ConditionCheck: { TableName: TABLE(), Key: followKeys.follows(follower, followee), ConditionExpression: 'attribute_not_exists(pk)' } }];
  return [
    { Delete: { TableName: TABLE(), Key: followKeys.follows(follower, followee), ConditionExpression: 'attribute_exists(pk)' } },
    { Delete: { TableName: TABLE(), Key: followKeys.followedBy(followee, follower) } },
  ];
}

/** Tries of a block or unblock whose reads a parallel write made stale. */
const ROUNDS = 5;

/**
 * block_user (docs/hub-api.md, "block_user / unblock_user"): idempotent; self 400; an unknown or
 * deleted account 404; past MAX_BLOCKS 409. ONE transaction writes the block list, the reverse
 * index and ends the follows both ways with both accounts' counters; every item it did not change
 * is checked to be as read, so a follow committed in between makes it read again.
 */
export async function block(openid: string, other: string): Promise<BlockResult> {
  notSelf(openid, other);
  await requireAccount(other);
  for (let round = 0; round < ROUNDS; round++) {
    const [list, mine, theirs] = await Promise.all([readList(openid), exists(followKeys.follows(openid, other)), exists(followKeys.follows(other, openid))]);
    const blocked = list?.blocked ?? {};
    if (blocked[other] !== undefined) return { block_user: other, blocked: true };
    if (Object.keys(blocked).length >= MAX_BLOCKS) throw new LimitExceededError(`You can block at most ${MAX_BLOCKS} accounts; unblock one first`);
    const at = clock.nowIso();
    const [m, t] = [mine ? 1 : 0, theirs ? 1 : 0];
    const items: TransactItem[] = [
      accountWrite(other, { follow_count: -t, follower_count: -m }, 'attribute_exists(pk) AND attribute_not_exists(deleted_at)'),
      listWrite(openid, list, { ...blocked, [other]: at }),
      { Put: { TableName: TABLE(), Item: { ...blockKeys.blockedBy(other, openid), entity: 'blocked_by', blocker: openid, blocked: other, blocked_at: at } } },
      ...relationWrites(openid, other, mine),
      ...relationWrites(other, openid, theirs),
      // Last: the blocker's own account, not deleted (docs/accounts.md, "Erasure"); checked alone when no follow ends.
      accountWrite(openid, { follow_count: -m, follower_count: -t }, LIVE_ACCOUNT),
    ];
    try {
      await transactWrite(items);
      return { block_user: other, blocked: true };
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw new NotFoundError(`User "${other.slice(0, 64)}" does not exist`);
      if (cancellationCode(error, items.length - 1) === 'ConditionalCheckFailed') throw new NotFoundError('Your account does not exist');
      const stale = items.some((_, i) => cancellationCode(error, i) === 'ConditionalCheckFailed');
      if (!stale) throw error;
    }
  }
  throw new UnavailableError('Your block list kept changing; retry shortly');
}

/** unblock_user: idempotent; self 400; unknown or deleted account 404. Nothing comes back: follows ended by the block stay ended. */
export async function unblock(openid: string, other: string): Promise<BlockResult> {
  notSelf(openid, other);
  await requireAccount(other);
  for (let round = 0; round < ROUNDS; round++) {
    const list = await readList(openid);
    const { [other]: was, ...rest } = list?.blocked ?? {};
    if (was === undefined) return { block_user: other, blocked: false };
    try {
      await transactWrite([listWrite(openid, list, rest), { Delete: { TableName: TABLE(), Key: blockKeys.blockedBy(other, openid) } }]);
      return { block_user: other, blocked: false };
    } catch (error) {
      if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') throw error;
    }
  }
  throw new UnavailableError('Your block list kept changing; retry shortly');
}

export interface BlockedPage {
  list: { openid: string; nickname: string; blocked_at: string }[];
  total: number;
  next_offset: number;
}

/** get_blocked: the caller's blocked accounts, newest block first, PAGE_SIZE from position `offset` (one GetItem, one BatchGet). */
export async function blockedPage(openid: string, offset: number): Promise<BlockedPage> {
  const entries = Object.entries((await readList(openid))?.blocked ?? {}).sort(([a, at], [b, bt]) => (at === bt ? (a < b ? -1 : 1) : at < bt ? 1 : -1));
  const page = entries.slice(offset, offset + PAGE_SIZE);
  const accounts = await batchGetHubItems<Account>(page.map(([o]) => accountKeys.account(o)));
  const list = page.flatMap(([o, at]) => {
    const account = accounts.get(itemId(accountKeys.account(o)));
    // An account deleted since: its erasure takes it out of the list (lib/deletion/erasure.ts).
    return account && !isDeleted(account) ? [{ openid: o, nickname: account.nickname, blocked_at: at }] : [];
  });
  return { list, total: entries.length, next_offset: offset + PAGE_SIZE < entries.length ? offset + PAGE_SIZE : -1 };
}

/**
 * The erasure of a deleted account's blocks (lib/deletion/erasure.ts, step `partition`), both
 * ways, idempotent: its own list (each reverse item, then the list) and its place in the lists of
 * those who blocked it (the reverse item found in its partition: the entry, then the item).
 */
export const isBlockItem = (openid: string, sk: string) => sk === blockKeys.blockList(openid).sk || sk.startsWith(blockKeys.blockedByPrefix);

export async function eraseBlockItem(openid: string, item: { sk: string; blocked?: unknown; pk: string }): Promise<void> {
  if (item.sk === blockKeys.blockList(openid).sk) {
    await batchWriteHubItems(Object.keys((item.blocked ?? {}) as Record<string, string>).map((other) => ({ delete: blockKeys.blockedBy(other, openid) })));
    await db.send(new DeleteCommand({ TableName: TABLE(), Key: blockKeys.blockList(openid) }));
    return;
  }
  if (item.sk.startsWith(blockKeys.blockedByPrefix)) {
    const blocker = item.sk.slice(blockKeys.blockedByPrefix.length);
    await db
      .send(
        new UpdateCommand({
          TableName: TABLE(),
          Key: blockKeys.blockList(blocker),
          UpdateExpression: 'REMOVE #b.#o ADD #v :one',
          ConditionExpression: 'attribute_exists(#b.#o)',
          ExpressionAttributeNames: { '#b': 'blocked', '#o': openid, '#v': 'version' },
          ExpressionAttributeValues: { ':one': 1 },
        }),
      )
      .catch((error: unknown) => {
        // Not in the list (any more): unblocked, or a page done twice.
        if (!isConditionalCheckFailed(error)) throw error;
      });
    await db.send(new DeleteCommand({ TableName: TABLE(), Key: { pk: item.pk, sk: item.sk } }));
  }
}

import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../platform/clock.js';
import { batchGetHubItems, batchWriteHubItems, inParallel, itemId } from '../../platform/db/batch.js';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { cancellationCode, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { LimitExceededError, NotFoundError, UnavailableError, ValidationError } from '../../platform/errors.js';
import { accountKeys, isDeleted, LIVE_ACCOUNT, personOf, requireAccount, type Account } from '../accounts/accounts.js';
import { followKeys } from './follows.js';
import { blockKeys, type BlockListItem } from './block-items.js';
import type * as z from '../../platform/zod.js';
import type { blockedPageSchema, blockResultSchema } from './block-schema.js';

/** The most accounts one account may block: the list is one item, read whole by every feed call (docs/moderation.md, "Blocking"). */
export const MAX_BLOCKS = 1000;
const PAGE_SIZE = 20;
const TABLE = () => tableNames.hub;

export type BlockResult = z.output<typeof blockResultSchema>;

function notSelf(openid: string, other: string) {
  if (openid === other) throw new ValidationError('Invalid parameter "block_user": you cannot block or unblock yourself');
}

const readList = async (openid: string) =>
  (await db.send(new GetCommand({ TableName: TABLE(), Key: blockKeys.blockList(openid), ConsistentRead: true }))).Item as BlockListItem | undefined;

const exists = async (key: { pk: string; sk: string }) =>
  (await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true, ProjectionExpression: 'pk' }))).Item !== undefined;

/** The list item written back with `blocked` and `persons`, conditional on the version read (none: the item must not exist). */
function listWrite(openid: string, read: BlockListItem | undefined, blocked: Record<string, string>, persons: Record<string, string>): TransactItem {
  const condition = read
    ? { ConditionExpression: '#v = :v', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':v': read.version ?? 0 } }
    : { ConditionExpression: 'attribute_not_exists(pk)' };
  if (Object.keys(blocked).length === 0) return { Delete: { TableName: TABLE(), Key: blockKeys.blockList(openid), ...condition } };
  // `persons` always present (possibly empty): reapplyBlocks updates paths inside it.
  return { Put: { TableName: TABLE(), Item: { ...blockKeys.blockList(openid), entity: 'blocks', openid, blocked, persons, version: (read?.version ?? 0) + 1 }, ...condition } };
}

/** The person item of a block (blockKeys.personBlockedBy), as a transaction item. */
const personBlockPut = (person: string, blocker: string, blocked: string, at: string): TransactItem => ({
  Put: { TableName: TABLE(), Item: { ...blockKeys.personBlockedBy(person, blocker), entity: 'person_block', blocker, blocked, blocked_at: at } },
});

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
 * deleted account 404; past MAX_BLOCKS 409. ONE transaction writes the block list (with the blocked
 * account's person id), the reverse index, the person item (the block follows the person across
 * the re-creation of its account) and ends the follows both ways with both accounts' counters;
 * every item it did not change is checked to be as read, so a follow committed in between makes it
 * read again.
 */
export async function block(openid: string, other: string): Promise<BlockResult> {
  notSelf(openid, other);
  const person = personOf(await requireAccount(other));
  for (let round = 0; round < ROUNDS; round++) {
    const [list, mine, theirs] = await Promise.all([readList(openid), exists(followKeys.follows(openid, other)), exists(followKeys.follows(other, openid))]);
    const blocked = list?.blocked ?? {};
    if (blocked[other] !== undefined) return { block_user: other, blocked: true };
    if (Object.keys(blocked).length >= MAX_BLOCKS) throw new LimitExceededError(`You can block at most ${MAX_BLOCKS} accounts; unblock one first`);
    const at = clock.nowIso();
    const [m, t] = [mine ? 1 : 0, theirs ? 1 : 0];
    const items: TransactItem[] = [
      accountWrite(other, { follow_count: -t, follower_count: -m }, LIVE_ACCOUNT),
      listWrite(openid, list, { ...blocked, [other]: at }, { ...list?.persons, ...(person ? { [other]: person } : {}) }),
      { Put: { TableName: TABLE(), Item: { ...blockKeys.blockedBy(other, openid), entity: 'blocked_by', blocker: openid, blocked: other, blocked_at: at } } },
      ...(person ? [personBlockPut(person, openid, other, at)] : []),
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

/**
 * unblock_user: idempotent; self 400; an account in the list is unblocked even when deleted (its
 * entry, and the block's person item, go); otherwise an unknown or deleted account is 404. Nothing
 * comes back: follows ended by the block stay ended.
 */
export async function unblock(openid: string, other: string): Promise<BlockResult> {
  notSelf(openid, other);
  for (let round = 0; round < ROUNDS; round++) {
    const list = await readList(openid);
    const { [other]: was, ...rest } = list?.blocked ?? {};
    if (was === undefined) {
      if (round === 0) await requireAccount(other);
      return { block_user: other, blocked: false };
    }
    const { [other]: person, ...persons } = list?.persons ?? {};
    try {
      await transactWrite([
        listWrite(openid, list, rest, persons),
        { Delete: { TableName: TABLE(), Key: blockKeys.blockedBy(other, openid) } },
        ...(person ? [{ Delete: { TableName: TABLE(), Key: blockKeys.personBlockedBy(person, openid) } }] : []),
      ]);
      return { block_user: other, blocked: false };
    } catch (error) {
      if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') throw error;
    }
  }
  throw new UnavailableError('Your block list kept changing; retry shortly');
}

/**
 * What a blocked account is now (docs/moderation.md, "Blocking"): `active`; `deleted` (the block
 * holds against the person: an account created again with its phone is blocked from its first
 * request and takes this entry's place); `lapsed` (deleted, and the block cannot follow the person:
 * it was made before blocks kept the person id).
 */
export type BlockedState = BlockedPage['list'][number]['state'];

export type BlockedPage = z.output<typeof blockedPageSchema>;

/** get_blocked: the caller's blocked accounts, newest block first, PAGE_SIZE from position `offset` (one GetItem, one BatchGet). */
export async function blockedPage(openid: string, offset: number): Promise<BlockedPage> {
  const item = await readList(openid);
  const entries = Object.entries(item?.blocked ?? {}).sort(([a, at], [b, bt]) => (at === bt ? (a < b ? -1 : 1) : at < bt ? 1 : -1));
  const page = entries.slice(offset, offset + PAGE_SIZE);
  const accounts = await batchGetHubItems<Account>(page.map(([o]) => accountKeys.account(o)));
  const list = page.map(([o, at]) => {
    const account = accounts.get(itemId(accountKeys.account(o)));
    // A deleted account stays listed (its tombstone expires: then no item at all), without a name.
    if (account && !isDeleted(account)) return { openid: o, nickname: account.nickname, blocked_at: at, state: 'active' as const };
    return { openid: o, nickname: '', blocked_at: at, state: item?.persons?.[o] ? ('deleted' as const) : ('lapsed' as const) };
  });
  return { list, total: entries.length, next_offset: offset + PAGE_SIZE < entries.length ? offset + PAGE_SIZE : -1 };
}

/**
 * The erasure of a deleted account's blocks (lib/features/deletion/erasure.ts, step `partition`),
 * idempotent. Its own list is its own data: each reverse item, each person item, then the list. Its
 * place in the lists of those who blocked it stays: the block holds against the person (the person
 * item, blockKeys.personBlockedBy), and the blocker's get_blocked shows the entry as deleted; only
 * the reverse item in its own partition goes.
 */
export const isBlockItem = (openid: string, sk: string) => sk === blockKeys.blockList(openid).sk || sk.startsWith(blockKeys.blockedByPrefix);

export async function eraseBlockItem(openid: string, item: { sk: string; blocked?: unknown; persons?: unknown; pk: string }): Promise<void> {
  if (item.sk === blockKeys.blockList(openid).sk) {
    await batchWriteHubItems([
      ...Object.keys((item.blocked ?? {}) as Record<string, string>).map((other) => ({ delete: blockKeys.blockedBy(other, openid) })),
      ...Object.values((item.persons ?? {}) as Record<string, string>).map((person) => ({ delete: blockKeys.personBlockedBy(person, openid) })),
    ]);
    await db.send(new DeleteCommand({ TableName: TABLE(), Key: blockKeys.blockList(openid) }));
    return;
  }
  if (item.sk.startsWith(blockKeys.blockedByPrefix)) await db.send(new DeleteCommand({ TableName: TABLE(), Key: { pk: item.pk, sk: item.sk } }));
}

interface PersonBlock {
  blocker: string;
  blocked: string;
  blocked_at: string;
}

/** The blocks that follow the person `person` (its person items: one Query a page, strongly consistent). */
async function blocksOfPerson(person: string): Promise<PersonBlock[]> {
  const found: PersonBlock[] = [];
  for (let start: Record<string, unknown> | undefined, first = true; first || start; first = false) {
    const out = await db.send(
      new QueryCommand({
        TableName: TABLE(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :blocked)',
        ExpressionAttributeValues: { ':pk': blockKeys.personBlockedBy(person, '').pk, ':blocked': blockKeys.blockedByPrefix },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    found.push(...((out.Items ?? []) as PersonBlock[]));
    start = out.LastEvaluatedKey;
  }
  return found;
}

/** A block of the person that names another (deleted) account than the one signing in. */
export type PendingBlock = PersonBlock;

/** The person's blocks still naming another account than `openid` (one Query: blocksOfPerson). */
export const pendingBlocks = async (person: string, openid: string): Promise<PendingBlock[]> => (await blocksOfPerson(person)).filter((b) => b.blocked !== openid);

/**
 * A block of the person `person` moved to its new account `openid`, as transaction items: in the
 * blocker's list the entry is replaced (same blocked_at, so the list does not grow: MAX_BLOCKS is no
 * obstacle), the reverse item is written in `openid`'s partition (follow_user and comment_set refuse
 * from the account's first request) and the person item names `openid`. The first item fails when
 * the blocker's list no longer holds the old entry (unblocked, erased), the last when another
 * sign-in moved it first.
 */
export function moveBlockItems(person: string, openid: string, b: PendingBlock): TransactItem[] {
  return [
    {
      Update: {
        TableName: TABLE(),
        Key: blockKeys.blockList(b.blocker),
        UpdateExpression: 'REMOVE #b.#old, #p.#old SET #b.#new = :at, #p.#new = :person ADD #v :one',
        ConditionExpression: 'attribute_exists(#b.#old) AND attribute_exists(#p)',
        ExpressionAttributeNames: { '#b': 'blocked', '#p': 'persons', '#old': b.blocked, '#new': openid, '#v': 'version' },
        ExpressionAttributeValues: { ':at': b.blocked_at, ':person': person, ':one': 1 },
      },
    },
    { Put: { TableName: TABLE(), Item: { ...blockKeys.blockedBy(openid, b.blocker), entity: 'blocked_by', blocker: b.blocker, blocked: openid, blocked_at: b.blocked_at } } },
    {
      Update: {
        TableName: TABLE(),
        Key: blockKeys.personBlockedBy(person, b.blocker),
        UpdateExpression: 'SET blocked = :new',
        ConditionExpression: 'blocked = :old',
        ExpressionAttributeValues: { ':new': openid, ':old': b.blocked },
      },
    },
  ];
}

/** Removes a person item that still names `b.blocked` while its blocker's list no longer holds that entry (erased, or an unblock of old). */
const dropStale = (person: string, b: PendingBlock) =>
  db
    .send(new DeleteCommand({ TableName: TABLE(), Key: blockKeys.personBlockedBy(person, b.blocker), ConditionExpression: 'blocked = :old', ExpressionAttributeValues: { ':old': b.blocked } }))
    .catch((error: unknown) => {
      // Moved or unblocked meanwhile: not stale.
      if (!isConditionalCheckFailed(error)) throw error;
    });

/**
 * The pending blocks whose blocker's list still holds the entry (one BatchGet of the lists); the
 * person items of the others are stale and removed, so that they can never fail a sign-in again.
 * The sign-in calls it when a try failed on a moved block's condition.
 */
export async function liveBlocks(person: string, pending: PendingBlock[]): Promise<PendingBlock[]> {
  const lists = await batchGetHubItems<BlockListItem>(pending.map((b) => blockKeys.blockList(b.blocker)));
  const live = pending.filter((b) => lists.get(itemId(blockKeys.blockList(b.blocker)))?.blocked?.[b.blocked] !== undefined);
  await inParallel(pending.filter((b) => !live.includes(b)), 10, (b) => dropStale(person, b));
  return live;
}

/**
 * The blocks that did not fit in the sign-in's transaction (lib/features/sign-in/sign-in.ts), moved one
 * transaction each before the token is issued; idempotent: a block already moved or unblocked
 * meanwhile is skipped, and the person item of a blocker that no longer holds the entry (erased)
 * is removed as stale.
 */
export async function moveBlocks(person: string, openid: string, pending: PendingBlock[]): Promise<void> {
  await inParallel(pending, 10, async (b) => {
    try {
      await transactWrite(moveBlockItems(person, openid, b));
    } catch (error) {
      if (![0, 2].some((i) => cancellationCode(error, i) === 'ConditionalCheckFailed')) throw error;
      await dropStale(person, b);
    }
  });
}

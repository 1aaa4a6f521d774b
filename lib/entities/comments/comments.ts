import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetHubItems } from '../../platform/db/batch.js';
import { itemParser } from '../../platform/db/item-check.js';
import { db, tableNames } from '../../platform/db/client.js';
import { accountIn, accountKeys, isDeleted } from '../accounts/accounts.js';
import { pad, timeKey, shardKey, allShards, SHARDS } from '../../platform/db/keys.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const commentKeys = {
  /**
   * Comment number `seq` (1, 2, ...) of a video: page N is the seq range below the video's
   * comment_count, so every page costs one Query. gsi1: COMMENTS#openid / created_at#cid (my
   * comments); gsi2: COMMENTS#k / created_at#cid (export of all comments; k from the cid).
   */
  comment: (vid: string, seq: number) => ({ pk: `VIDEO#${vid}`, sk: `COMMENT#${pad(seq)}` }),
  commentsByAuthorIndex: (openid: string, createdAt: string, cid: string) => ({ gsi1pk: `COMMENTS#${openid}`, gsi1sk: timeKey(createdAt, cid) }),
  allCommentsIndex: (createdAt: string, cid: string) => ({ gsi2pk: shardKey('COMMENTS', cid, SHARDS.comments), gsi2sk: timeKey(createdAt, cid) }),
  /**
   * Retry guard of comment_set: (openid, vid, content) within 60 s, with a TTL. Written first as the
   * comment's reservation (with the window slot), given the comment's `seq` when it is written.
   */
  commentDedup: (openid: string, digest: string) => ({ pk: `ACCOUNT#${openid}`, sk: `COMMENTDEDUP#${digest}` }),
  /** openid commented on vid (latest comment time): get_fav watch_list=comment lists each video once. gsi1: COMMENTED#openid / commented_at#vid. */
  commented: (openid: string, vid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `COMMENTED#${vid}` }),
  commentedIndex: (openid: string, at: string, vid: string) => ({ gsi1pk: `COMMENTED#${openid}`, gsi1sk: timeKey(at, vid) }),
  /**
   * The numbering of a video's comments: `n` numbers handed out (a plain atomic update, never in a
   * transaction, so parallel comments never conflict; only by comments already reserved), `claim`
   * (the take of the latest number) and `gaps`, the numbers of comments whose write failed after
   * taking theirs (at most 1,000: docs/data-model.md, "Comment numbers"). Absent on videos commented
   * on before it: their comments are 1..comment_count with no gaps.
   */
  commentSequence: (vid: string) => ({ pk: `VIDEO#${vid}`, sk: 'COMMENTSEQ' }),
  /**
   * A comment by its cid alone (comment ids are globally unique): its `vid` and `seq`, written in the
   * comment's own transaction (post-comment.ts writeComment); comment_delete and moderation read it
   * consistently (docs/moderation.md, "Deleting a comment").
   */
  commentById: (cid: string) => ({ pk: `COMMENTID#${cid}`, sk: 'COMMENT' }),
};

/**
 * A comment number whose write failed, added to the video's comment sequence's `gaps` by the table's
 * stream (lib/features/streams/counters.ts, which merges such deltas per item; docs/data-model.md,
 * "Comment numbers").
 */
export const commentGapDelta = (vid: string, seq: number) => ({ key: commentKeys.commentSequence(vid), attribute: 'gaps', delta: seq });

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const commentPartitions = {
  comments: allShards('COMMENTS', SHARDS.comments),
};


/** A comment as stored: `commentKeys.comment(vid, seq)`. */
export interface StoredComment {
  cid: string;
  vid: string;
  seq: number;
  openid: string;
  /** The author's nickname when the comment was written (used if the account is gone). */
  nickname: string;
  content: string;
  created_at: string;
}

/** The checked parse of a comment item (a deleted one keeps its place, its texts emptied: tombstoneUpdate). */
export const commentFromItem = itemParser<StoredComment & { deleted_at?: string }>('comment', {
  entity: 'comment',
  required: { cid: 'string', vid: 'string', seq: 'number', created_at: 'string' },
  optional: { openid: 'string', nickname: 'string', content: 'string', deleted_at: 'string' },
});

/** The checked parse of a comment's lookup item (commentLookupItem). */
const commentLookupFromItem = itemParser<{ vid: string; seq: number }>('comment lookup', { entity: 'comment_id', required: { vid: 'string', seq: 'number' } });

/** A comment in responses (docs/hub-api.md, "comment_set"). */
export interface CommentView {
  cid: string;
  vid: string;
  openid: string;
  nickname: string;
  content: string;
  created_at: string;
}

export const COMMENT_PAGE_SIZE = 20;

/** The stored item of a comment: number `seq` of its video, in the author's and the all-comments indexes. */
export function commentItem(comment: StoredComment) {
  return {
    ...commentKeys.comment(comment.vid, comment.seq),
    ...commentKeys.commentsByAuthorIndex(comment.openid, comment.created_at, comment.cid),
    ...commentKeys.allCommentsIndex(comment.created_at, comment.cid),
    entity: 'comment',
    ...comment,
  };
}

/** The lookup item of a comment by its cid (`commentKeys.commentById`): where the comment is, nothing of its author or text. */
export function commentLookupItem(comment: Pick<StoredComment, 'cid' | 'vid' | 'seq'>) {
  return { ...commentKeys.commentById(comment.cid), entity: 'comment_id', cid: comment.cid, vid: comment.vid, seq: comment.seq };
}

/** Who turned a comment into a tombstone: its author, a moderator, or the erasure of its author's account. */
export type RemovedBy = 'author' | 'moderator' | 'account_deleted';

/**
 * The one way a comment is removed (docs/moderation.md, "Deleting a comment"; docs/accounts.md, "What
 * others see"): a tombstone in place, its number and its video's `comment_count` kept so no page
 * moves; no text, no author, out of both comment indexes. Conditional on `author` still being its
 * author: a tombstone already (a repeat, a race with another removal) fails the condition. The update
 * as a transaction item's `Update` or an UpdateCommand's input.
 */
export function tombstoneUpdate(place: { vid: string; seq: number }, author: string, removedBy: RemovedBy, atIso: string) {
  return {
    TableName: tableNames.hub,
    Key: commentKeys.comment(place.vid, place.seq),
    UpdateExpression: 'SET content = :empty, nickname = :empty, openid = :empty, deleted_at = :now, removed_by = :by REMOVE gsi1pk, gsi1sk, gsi2pk, gsi2sk',
    ConditionExpression: 'openid = :me',
    ExpressionAttributeValues: { ':empty': '', ':now': atIso, ':me': author, ':by': removedBy },
  };
}

/**
 * A comment by its cid (the lookup item, then the comment, both read consistently), or undefined when
 * there is none: an unknown cid, or a comment written before the lookup existed.
 */
export async function findComment(cid: string): Promise<(StoredComment & { deleted_at?: string }) | undefined> {
  const lookup = commentLookupFromItem((await db.send(new GetCommand({ TableName: tableNames.hub, Key: commentKeys.commentById(cid), ConsistentRead: true }))).Item);
  if (!lookup) return undefined;
  const item = commentFromItem((await db.send(new GetCommand({ TableName: tableNames.hub, Key: commentKeys.comment(lookup.vid, lookup.seq), ConsistentRead: true }))).Item);
  return item?.cid === cid ? item : undefined;
}

/**
 * The account's "commented" item of a video, strongly consistent: the comment_count its latest
 * comment answered (`shown_comment_count`, lib/entities/catalog/own-counts.ts) and when (`commented_at`).
 */
export async function getCommented(openid: string, vid: string): Promise<Record<string, unknown> | undefined> {
  return (await db.send(new GetCommand({ TableName: tableNames.hub, Key: commentKeys.commented(openid, vid), ConsistentRead: true }))).Item;
}

export function toCommentView(comment: StoredComment, nickname = comment.nickname): CommentView {
  return { cid: comment.cid, vid: comment.vid, openid: comment.openid, nickname, content: comment.content, created_at: comment.created_at };
}

/**
 * A removed comment (its author deleted it, a moderator removed it, or its author's account was
 * deleted: docs/accounts.md "What others see", docs/moderation.md "Deleting a comment"): its
 * place and time stay, so pages and counts do not move; no text, no author.
 */
export const tombstoneView = (comment: StoredComment): CommentView => ({ cid: comment.cid, vid: comment.vid, openid: '', nickname: '', content: '', created_at: comment.created_at });

/** Comments in response shape with the authors' current nicknames (one BatchGet); those of deleted accounts as tombstones. */
export async function commentViews(comments: StoredComment[]): Promise<CommentView[]> {
  const accounts = await batchGetHubItems(comments.filter((c) => c.openid).map((c) => accountKeys.account(c.openid)));
  return comments.map((c) => {
    const author = c.openid ? accountIn(accounts, c.openid) : undefined;
    if (!c.openid || isDeleted(author)) return tombstoneView(c);
    return toCommentView(c, author?.nickname ?? c.nickname);
  });
}

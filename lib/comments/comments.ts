import { batchGetHubItems, itemId } from '../db/batch.js';
import { hubItems } from '../db/hub-items.js';

/** A comment as stored: `hubItems.comment(vid, seq)`. */
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
    ...hubItems.comment(comment.vid, comment.seq),
    ...hubItems.commentsByAuthorIndex(comment.openid, comment.created_at, comment.cid),
    ...hubItems.allCommentsIndex(comment.created_at, comment.cid),
    entity: 'comment',
    ...comment,
  };
}

export function toCommentView(comment: StoredComment, nickname = comment.nickname): CommentView {
  return { cid: comment.cid, vid: comment.vid, openid: comment.openid, nickname, content: comment.content, created_at: comment.created_at };
}

/** Comments in response shape with the authors' current nicknames (one BatchGet). */
export async function commentViews(comments: StoredComment[]): Promise<CommentView[]> {
  const accounts = await batchGetHubItems<{ nickname?: string }>(comments.map((c) => hubItems.account(c.openid)));
  return comments.map((c) => toCommentView(c, accounts.get(itemId(hubItems.account(c.openid)))?.nickname ?? c.nickname));
}

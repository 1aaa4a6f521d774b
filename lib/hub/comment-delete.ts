import * as z from '../zod.js';
import { deleteOwnComment } from '../comments/delete-comment.js';
import { identifier } from './params.js';
import { defineOperation } from './operation.js';

const query = z.object({ openid: identifier(), vid: identifier(), cid: identifier() });

/** comment_delete (docs/hub-api.md, "comment_delete"): the author removes their comment, a tombstone in place. */
export const commentDelete = defineOperation({
  auth: 'required',
  scope: 'hub:write',
  query,
  run: (input) => deleteOwnComment(input),
});

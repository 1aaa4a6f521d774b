import * as z from '../../platform/zod.js';
import { deleteOwnComment, type CommentDeleted } from '../../entities/comments/delete-comment.js';
import { NotFoundError } from '../../platform/errors.js';
import { withdrawHeldComment } from '../../features/filter/held-items.js';
import { identifier } from './params.js';
import { defineOperation } from './operation.js';
import { commentViewSchema } from '../../entities/comments/comment-view-schema.js';
import { exampleComment, signedIn } from './examples.js';

const query = z.object({ openid: identifier(), vid: identifier(), cid: identifier() });

/**
 * comment_delete (docs/hub-api.md, "comment_delete"): the author removes their comment, a tombstone
 * in place; a cid that names no comment may be the caller's held comment (the cid comment_set
 * answered it with), which is withdrawn (docs/moderation.md, "Held content") and answered alike.
 */
export const commentDelete = defineOperation({
  name: 'comment_delete',
  summary: 'Delete your own comment: a tombstone in place, numbering and comment_count unchanged (a held comment, by the cid comment_set answered: withdrawn from the moderation queue); again: the same answer',
  auth: 'required',
  scope: 'hub:write',
  query,
  data: z.object({ comment: commentViewSchema, deleted: z.literal(true) }),
  examples: [
    {
      summary: 'Delete a comment',
      query: { ...signedIn, vid: 'v_8k2m4q', cid: 'c_01' },
      data: { comment: { ...exampleComment, openid: '', nickname: '', content: '' }, deleted: true },
    },
  ],
  async run(input): Promise<CommentDeleted> {
    try {
      return await deleteOwnComment(input);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      const withdrawn = await withdrawHeldComment(input.openid, input.vid, input.cid);
      if (!withdrawn) throw error;
      return { comment: { ...withdrawn, openid: '', nickname: '', content: '' }, deleted: true };
    }
  },
});

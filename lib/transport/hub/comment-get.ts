import * as z from '../../platform/zod.js';
import { commentPage } from '../../entities/comments/comment-page.js';
import { defineOperation } from './operation.js';
import { heldCommentsOf } from '../../features/filter/held-items.js';
import { getAccount } from '../../entities/accounts/accounts.js';
import { boundedInt, identifier, presentText } from './params.js';
import { commentViewSchema } from '../../entities/comments/comment-view-schema.js';
import { exampleComment, signedIn } from './examples.js';

const query = z.object({
  openid: identifier(),
  vid: identifier(),
  page: boundedInt(999_999_999, 1),
  d: presentText(64),
});

/**
 * comment_get (docs/hub-api.md, "comment_get"): a page of a video's comments, newest first. Page 1
 * shows the caller their own held comments on the video first, marked `held: true`
 * (docs/moderation.md, "Filter"); nobody else sees them, and `total` does not count them.
 */
export const commentGet = defineOperation({
  name: 'comment_get',
  summary: 'Comments of a video, newest first, 20 per page',
  auth: 'required',
  scope: 'hub:read',
  query,
  data: z.object({ list: z.array(commentViewSchema), page: z.number(), page_size: z.number(), total: z.number(), has_more: z.boolean() }),
  examples: [{ summary: 'Page 1', query: { ...signedIn, vid: 'v_8k2m4q', page: '1', d: '' }, data: { list: [exampleComment], page: 1, page_size: 20, total: 1, has_more: false } }],
  async run(input) {
    const [page, held] = await Promise.all([commentPage(input), input.page === 1 ? heldCommentsOf(input.openid, input.vid) : []]);
    if (held.length === 0) return page;
    const nickname = (await getAccount(input.openid))?.nickname ?? '';
    const mine = held.map((h) => ({ cid: h.target_id, vid: input.vid, openid: input.openid, nickname, content: h.text.content!, created_at: h.at, held: true }));
    return { ...page, list: [...mine, ...page.list] };
  },
});

import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { MAX_COMMENT_CHARS, postComment } from '../../entities/comments/post-comment.js';
import { charLength, isBlank, NOT_BLANK, textIssues, textPattern } from '../../platform/text.js';
import { identifier } from './params.js';
import { defineOperation } from './operation.js';
import { holdComment } from '../../features/filter/held-items.js';
import { checkFields } from '../../features/filter/terms.js';
import { getVideo } from '../../entities/catalog/videos.js';
import { personOf, requireAccount } from '../../entities/accounts/accounts.js';
import { getCommented } from '../../entities/comments/comments.js';
import { ownCommentCount } from '../../entities/catalog/own-counts.js';
import { clock } from '../../platform/clock.js';
import { NotFoundError } from '../../platform/errors.js';
import { notBlockedByCheck } from '../../entities/social/block-items.js';
import { commentViewSchema } from '../../entities/comments/comment-view-schema.js';
import { exampleComment, signedIn } from './examples.js';

const query = z.object({
  openid: identifier(),
  vid: identifier(),
  content: documentAs(z
    .pipe(
      z.string({ error: 'is required' }),
      z.transform((v: string) => v.replace(/\r\n?/g, '\n').trim()),
    )
    .check(
      z.refine((v) => v.length > 0, 'must not be empty'),
      z.refine((v) => v.length === 0 || !isBlank(v), NOT_BLANK),
      z.refine((v) => charLength(v) <= MAX_COMMENT_CHARS, `must be at most ${MAX_COMMENT_CHARS} characters`),
      z.superRefine(textIssues(true)),
    ), { type: 'string', minLength: 1, maxLength: MAX_COMMENT_CHARS, pattern: textPattern(true) }),
});

/**
 * comment_set (docs/hub-api.md, "comment_set"): a comment on a video, deduplicated and rate limited.
 * The filter first (docs/moderation.md, "Filter"): a `reject` term is 400 naming `content`; a `hold`
 * term holds the comment without a number (comment_count does not move) and answers it with `held: true`
 * and the count as the caller sees it (docs/data-model.md, "Read your own writes").
 */
export const commentSet = defineOperation({
  name: 'comment_set',
  summary: 'Comment on a video',
  auth: 'required',
  scope: 'hub:write',
  query,
  data: z.object({ comment: commentViewSchema, comment_count: z.number(), held: z.optional(z.literal(true)) }),
  examples: [{ summary: 'A comment', query: { ...signedIn, vid: 'v_8k2m4q', content: 'Great booth!' }, data: { comment: exampleComment, comment_count: 4 } }],
  async run(input, { person }) {
    const { held } = await checkFields({ content: input.content });
    if (held.length === 0) return postComment({ ...input, person });
    const [video, author, commented] = await Promise.all([getVideo(input.vid, true), requireAccount(input.openid, 'Your account'), getCommented(input.openid, input.vid)]);
    if (!video) throw new NotFoundError(`Video "${input.vid.slice(0, 64)}" does not exist`);
    // The plain path's checks before anything is held: the video, the account, then in the hold's
    // transaction the person's comment window (docs/accounts.md, "The person id") and the block
    // (lib/entities/comments/post-comment.ts reserve).
    const item = await holdComment({ ...input, person: person ?? personOf(author) }, notBlockedByCheck(video.author_openid, input.openid));
    const comment = { cid: item.target_id, vid: input.vid, openid: input.openid, nickname: author.nickname, content: item.text.content!, created_at: item.at, held: true as const };
    return { comment, comment_count: ownCommentCount(video.comment_count, commented, clock.now()), held: true as const };
  },
});

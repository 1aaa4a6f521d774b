import * as z from '../zod.js';
import { MAX_COMMENT_CHARS, postComment } from '../comments/post-comment.js';
import { charLength, textIssues } from '../text.js';
import { identifier } from './params.js';
import { defineOperation } from './operation.js';

const query = z.object({
  openid: identifier(),
  vid: identifier(),
  content: z
    .pipe(
      z.string({ error: 'is required' }),
      z.transform((v: string) => v.replace(/\r\n?/g, '\n').trim()),
    )
    .check(
      z.refine((v) => v.length > 0, 'must not be empty'),
      z.refine((v) => charLength(v) <= MAX_COMMENT_CHARS, `must be at most ${MAX_COMMENT_CHARS} characters`),
      z.superRefine(textIssues(true)),
    ),
});

/** comment_set (docs/hub-api.md, "comment_set"): a comment on a video, deduplicated and rate limited. */
export const commentSet = defineOperation({
  auth: 'required',
  scope: 'hub:write',
  query,
  run: (input) => postComment(input),
});

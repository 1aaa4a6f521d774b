import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { dislikeVideo } from '../../features/recommend/reactions.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { signedIn } from './examples.js';

/**
 * dislike ("not interested"): removes the caller's like if any; the video is never recommended to
 * the caller again; idempotent. `data: {vid, disliked: true, like_count}`.
 */
export const dislike = defineOperation({
  name: 'dislike',
  summary: 'Mark a video "not interested"',
  auth: 'required',
  scope: 'hub:write',
  query: z.object({
    openid: identifier(),
    vid: identifier(64),
    action: documentAs(z.string({ error: 'is required and must be "dislike"' }).check(
      z.trim(),
      z.refine((a) => a === 'dislike', 'must be "dislike"'),
    ), { type: 'string', enum: ['dislike'] }),
  }),
  data: z.object({ vid: z.string(), disliked: z.literal(true), like_count: z.number() }),
  examples: [{ summary: 'Dislike a video', query: { ...signedIn, vid: 'v_8k2m4q', action: 'dislike' }, data: { vid: 'v_8k2m4q', disliked: true, like_count: 12 } }],
  run: ({ openid, vid }) => dislikeVideo(openid, vid),
});

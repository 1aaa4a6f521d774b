import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { dislikeVideo } from '../../features/recommend/reactions.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';

/**
 * dislike ("not interested"): removes the caller's like if any; the video is never recommended to
 * the caller again; idempotent. `data: {vid, disliked: true, like_count}`.
 */
export const dislike = defineOperation({
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
  run: ({ openid, vid }) => dislikeVideo(openid, vid),
});

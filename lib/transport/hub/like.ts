import * as z from '../../platform/zod.js';
import { likeVideo } from '../../features/recommend/reactions.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { signedIn } from './examples.js';

/** like: idempotent; clears a dislike of the same video. `data: {vid, liked: true, like_count}`. */
export const like = defineOperation({
  name: 'like',
  summary: 'Like a video (idempotent; clears a dislike)',
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), vid: identifier(64) }),
  data: z.object({ vid: z.string(), liked: z.literal(true), like_count: z.number() }),
  examples: [{ summary: 'Like a video', query: { ...signedIn, vid: 'v_8k2m4q' }, data: { vid: 'v_8k2m4q', liked: true, like_count: 13 } }],
  run: ({ openid, vid }) => likeVideo(openid, vid),
});

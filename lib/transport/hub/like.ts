import * as z from '../../platform/zod.js';
import { likeVideo } from '../../features/recommend/reactions.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';

/** like: idempotent; clears a dislike of the same video. `data: {vid, liked: true, like_count}`. */
export const like = defineOperation({
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), vid: identifier(64) }),
  run: ({ openid, vid }) => likeVideo(openid, vid),
});

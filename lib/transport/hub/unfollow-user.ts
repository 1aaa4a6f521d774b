import * as z from '../../platform/zod.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { unfollow } from '../../entities/social/follows.js';

/** unfollow_user: `data: {follow_user, following: false, follower_count}`. */
export const unfollowUser = defineOperation({
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), follow_user: identifier() }),
  run: async ({ openid, follow_user }) => unfollow(openid, follow_user),
});

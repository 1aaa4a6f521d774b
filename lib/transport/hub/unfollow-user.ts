import * as z from '../../platform/zod.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { unfollow } from '../../entities/social/follows.js';
import { followResultSchema } from '../../entities/social/follow-schema.js';
import { signedIn } from './examples.js';

/** unfollow_user: `data: {follow_user, following: false, follower_count}`. */
export const unfollowUser = defineOperation({
  name: 'unfollow_user',
  summary: 'Unfollow a user (idempotent)',
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), follow_user: identifier() }),
  data: followResultSchema,
  examples: [{ summary: 'Unfollow', query: { ...signedIn, follow_user: 'u_0a1b2c3d4e' }, data: { follow_user: 'u_0a1b2c3d4e', following: false, follower_count: 7 } }],
  run: async ({ openid, follow_user }) => unfollow(openid, follow_user),
});

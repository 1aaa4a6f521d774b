import * as z from '../../platform/zod.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { follow } from '../../entities/social/follows.js';

/** follow_user: `data: {follow_user, following: true, follower_count}`. */
export const followUser = defineOperation({
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), follow_user: identifier() }),
  run: async ({ openid, follow_user }) => follow(openid, follow_user),
});

import * as z from '../../platform/zod.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { follow } from '../../entities/social/follows.js';
import { followResultSchema } from '../../entities/social/follow-schema.js';
import { signedIn } from './examples.js';

/** follow_user: `data: {follow_user, following: true, follower_count}`. */
export const followUser = defineOperation({
  name: 'follow_user',
  summary: 'Follow a user (idempotent)',
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), follow_user: identifier() }),
  data: followResultSchema,
  examples: [{ summary: 'Follow', query: { ...signedIn, follow_user: 'u_0a1b2c3d4e' }, data: { follow_user: 'u_0a1b2c3d4e', following: true, follower_count: 8 } }],
  run: async ({ openid, follow_user }) => follow(openid, follow_user),
});

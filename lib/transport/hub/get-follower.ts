import { relationPage } from '../../entities/social/follows.js';
import { relationListQuery } from './get-follow.js';
import { defineOperation } from './operation.js';
import { relationPageSchema } from '../../entities/social/follow-schema.js';
import { signedIn } from './examples.js';

/** get_follower: the users following `watch_list` (empty = the caller), newest relation first. */
export const getFollower = defineOperation({
  name: 'get_follower',
  summary: 'Users following an account, newest first',
  auth: 'required',
  scope: 'hub:read',
  query: relationListQuery,
  data: relationPageSchema,
  examples: [{ summary: 'My followers', query: { ...signedIn, watch_list: '', offset: '0' } }],
  run: async ({ openid, watch_list, offset }) => relationPage('followers', watch_list || openid, offset, openid),
});

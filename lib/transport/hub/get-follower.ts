import { relationPage } from '../../entities/social/follows.js';
import { relationListQuery } from './get-follow.js';
import { defineOperation } from './operation.js';

/** get_follower: the users following `watch_list` (empty = the caller), newest relation first. */
export const getFollower = defineOperation({
  auth: 'required',
  scope: 'hub:read',
  query: relationListQuery,
  run: async ({ openid, watch_list, offset }) => relationPage('followers', watch_list || openid, offset, openid),
});

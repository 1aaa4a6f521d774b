import * as z from '../../platform/zod.js';
import { relationPage } from '../../entities/social/follows.js';
import { defineOperation } from './operation.js';
import { boundedInt, deviceId, identifier, presentText } from './params.js';
import { relationPageSchema } from '../../entities/social/follow-schema.js';
import { signedIn } from './examples.js';

export const relationListQuery = z.object({
  openid: identifier(),
  /** Whose list: an openid, empty = the caller. */
  watch_list: presentText(128),
  offset: boundedInt(999_999_999),
  d: deviceId,
});

/** get_follow: the users `watch_list` (empty = the caller) follows, newest relation first. */
export const getFollow = defineOperation({
  name: 'get_follow',
  summary: 'Users an account follows, newest first',
  auth: 'required',
  scope: 'hub:read',
  query: relationListQuery,
  data: relationPageSchema,
  examples: [{ summary: 'Whom I follow', query: { ...signedIn, watch_list: '', offset: '0' } }],
  run: async ({ openid, watch_list, offset }) => relationPage('following', watch_list || openid, offset, openid),
});

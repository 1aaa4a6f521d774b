import * as z from '../../platform/zod.js';
import { blockedPage, MAX_BLOCKS } from '../../entities/social/blocks.js';
import { defineOperation } from './operation.js';
import { boundedInt, deviceId, identifier } from './params.js';

/** get_blocked (docs/hub-api.md, "get_blocked"): the caller's blocked accounts, newest block first. */
export const getBlocked = defineOperation({
  auth: 'required',
  scope: 'hub:read',
  query: z.object({ openid: identifier(), offset: boundedInt(MAX_BLOCKS), d: deviceId }),
  run: async ({ openid, offset }) => blockedPage(openid, offset),
});

import * as z from '../../platform/zod.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { unblock } from '../../entities/social/blocks.js';

/** unblock_user (docs/hub-api.md, "block_user / unblock_user"): `data: {block_user, blocked: false}`. */
export const unblockUser = defineOperation({
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), block_user: identifier() }),
  run: async ({ openid, block_user }) => unblock(openid, block_user),
});

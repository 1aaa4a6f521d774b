import * as z from '../../platform/zod.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { block } from '../../entities/social/blocks.js';

/** block_user (docs/hub-api.md, "block_user / unblock_user"): `data: {block_user, blocked: true}`. */
export const blockUser = defineOperation({
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), block_user: identifier() }),
  run: async ({ openid, block_user }) => block(openid, block_user),
});

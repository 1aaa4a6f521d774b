import * as z from '../../platform/zod.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { unblock } from '../../entities/social/blocks.js';
import { blockResultSchema } from '../../entities/social/block-schema.js';
import { signedIn } from './examples.js';

/** unblock_user (docs/hub-api.md, "block_user / unblock_user"): `data: {block_user, blocked: false}`. */
export const unblockUser = defineOperation({
  name: 'unblock_user',
  summary: 'Unblock a user (idempotent; ended follows stay ended; a deleted account in the list too)',
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), block_user: identifier() }),
  data: blockResultSchema,
  examples: [{ summary: 'Unblock', query: { ...signedIn, block_user: 'u_0a1b2c3d4e' }, data: { block_user: 'u_0a1b2c3d4e', blocked: false } }],
  run: async ({ openid, block_user }) => unblock(openid, block_user),
});

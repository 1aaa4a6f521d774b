import * as z from '../../platform/zod.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { block } from '../../entities/social/blocks.js';
import { blockResultSchema } from '../../entities/social/block-schema.js';
import { signedIn } from './examples.js';

/** block_user (docs/hub-api.md, "block_user / unblock_user"): `data: {block_user, blocked: true}`. */
export const blockUser = defineOperation({
  name: 'block_user',
  summary: 'Block a user (idempotent; ends follows both ways; private: docs/moderation.md, "Blocking")',
  auth: 'required',
  scope: 'hub:write',
  query: z.object({ openid: identifier(), block_user: identifier() }),
  data: blockResultSchema,
  examples: [{ summary: 'Block', query: { ...signedIn, block_user: 'u_0a1b2c3d4e' }, data: { block_user: 'u_0a1b2c3d4e', blocked: true } }],
  run: async ({ openid, block_user }) => block(openid, block_user),
});

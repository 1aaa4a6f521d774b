import * as z from '../../platform/zod.js';
import { blockedPage, MAX_BLOCKS } from '../../entities/social/blocks.js';
import { defineOperation } from './operation.js';
import { boundedInt, deviceId, identifier } from './params.js';
import { blockedPageSchema } from '../../entities/social/block-schema.js';
import { signedIn } from './examples.js';

/** get_blocked (docs/hub-api.md, "get_blocked"): the caller's blocked accounts, newest block first. */
export const getBlocked = defineOperation({
  name: 'get_blocked',
  summary: 'The accounts I blocked, newest block first, 20 per page',
  auth: 'required',
  scope: 'hub:read',
  query: z.object({ openid: identifier(), offset: boundedInt(MAX_BLOCKS), d: deviceId }),
  data: blockedPageSchema,
  examples: [
    {
      summary: 'First page',
      query: { ...signedIn, offset: '0' },
      data: {
        list: [
          { openid: 'u_0a1b2c3d4e', nickname: 'Booth hunter', blocked_at: '2026-01-05T09:00:00.000Z', state: 'active' },
          { openid: 'u_9f8e7d6c5b', nickname: '', blocked_at: '2026-01-04T18:00:00.000Z', state: 'deleted' },
        ],
        total: 2,
        next_offset: -1,
      },
    },
  ],
  run: async ({ openid, offset }) => blockedPage(openid, offset),
});

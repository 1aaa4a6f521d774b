import * as z from '../../platform/zod.js';

/** block_user / unblock_user's answer: BlockResult (blocks.ts) is inferred from it. */
export const blockResultSchema = z.object({ block_user: z.string(), blocked: z.boolean() });

/**
 * A page of get_blocked: BlockedPage (blocks.ts) is inferred from it. `state`: docs/moderation.md,
 * "Blocking" (a deleted account stays listed; `lapsed`: the block cannot follow the person).
 */
export const blockedPageSchema = z.object({
  list: z.array(z.object({ openid: z.string(), nickname: z.string(), blocked_at: z.string(), state: z.enum(['active', 'deleted', 'lapsed']) })),
  total: z.number(),
  next_offset: z.number(),
});

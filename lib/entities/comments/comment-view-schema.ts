import * as z from '../../platform/zod.js';

/**
 * A comment in hub answers (docs/hub-api.md, "comment_set"). `held: true`: the caller's own comment
 * held by the filter, seen by its author only (docs/moderation.md, "Filter").
 */
export const commentViewSchema = z.object({
  cid: z.string(),
  vid: z.string(),
  openid: z.string(),
  nickname: z.string(),
  content: z.string(),
  created_at: z.string(),
  held: z.optional(z.literal(true)),
});

import * as z from '../../platform/zod.js';

/** What the exports (lib/transport/routes/export-*.ts) answer, for the OpenAPI document (lib/platform/api-doc.ts). */
export const commentRow = z.object({ cid: z.string(), vid: z.string(), openid: z.string(), nickname: z.string(), content: z.string(), created_at: z.string() });
export const accountRow = z.object({
  openid: z.string(),
  nickname: z.string(),
  signature: z.string(),
  city: z.string(),
  phone: z.string(),
  /** Only for an admin or the row's owner: roles tell who the administrators are. */
  roles: z.optional(z.array(z.string())),
  created_at: z.string(),
  follow_count: z.number(),
  follower_count: z.number(),
});


export const exportPage = <T extends z.ZodMiniType>(row: T) => z.object({ items: z.array(row), next_cursor: z.union([z.string(), z.null()]) });

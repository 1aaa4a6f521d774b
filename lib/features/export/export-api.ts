import * as z from '../../platform/zod.js';
import type { Same } from '../../platform/api-doc.js';
import type { AccountRow, CommentRow } from './visibility.js';

/** What the exports (lib/transport/routes/export-*.ts) answer, for the OpenAPI document (lib/platform/api-doc.ts). */
export const commentRow = z.object({ cid: z.string(), vid: z.string(), openid: z.string(), nickname: z.string(), content: z.string(), created_at: z.string() });
export const accountRow = z.object({
  openid: z.string(),
  nickname: z.string(),
  signature: z.string(),
  city: z.string(),
  phone: z.string(),
  roles: z.optional(z.array(z.string())),
  created_at: z.string(),
  follow_count: z.number(),
  follower_count: z.number(),
});

const rowsMatch: [Same<z.output<typeof commentRow>, CommentRow>, Same<z.output<typeof accountRow>, AccountRow>] = [true, true];
void rowsMatch;

export const exportPage = <T extends z.ZodMiniType>(row: T) => z.object({ items: z.array(row), next_cursor: z.union([z.string(), z.null()]) });

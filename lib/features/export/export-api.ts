import * as z from '../../platform/zod.js';
import { defineRouteDoc, type Same } from '../../platform/api-doc.js';
import { pageQuerySchema } from './paging.js';
import type { AccountRow, CommentRow } from './visibility.js';

/** The exports in the OpenAPI document (lib/platform/api-doc.ts). */
const commentRow = z.object({ cid: z.string(), vid: z.string(), openid: z.string(), nickname: z.string(), content: z.string(), created_at: z.string() });
const accountRow = z.object({
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

const page = <T extends z.ZodMiniType>(row: T) => z.object({ items: z.array(row), next_cursor: z.union([z.string(), z.null()]) });

export const exportCommentsDoc = defineRouteDoc({
  tag: 'Protected',
  summary: 'Export comments, oldest first (admin: all; others: their own)',
  description: 'Paged with the signed `cursor` of the previous page (`next_cursor`, empty at the end); `since` keeps the comments written from then on (docs/protected-api.md, "`GET /api/v1/export/comments` and `GET /api/v1/export/accounts` — paged exports").',
  query: pageQuerySchema,
  success: { status: 200, kind: 'json', data: page(commentRow) },
  errors: [401, 403],
  examples: [{ summary: 'The first page of 100', query: { limit: '100' }, data: { items: [], next_cursor: null } }],
});

export const exportAccountsDoc = defineRouteDoc({
  tag: 'Protected',
  summary: 'Export accounts (admin: all; others: their own and the accounts they follow)',
  description: '`phone` is in full only for an admin or the row\'s owner, masked otherwise; `roles` only for them.',
  query: pageQuerySchema,
  success: { status: 200, kind: 'json', data: page(accountRow) },
  errors: [401, 403],
  examples: [{ summary: 'A page of 2', query: { limit: '2' } }],
});

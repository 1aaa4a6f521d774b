import * as z from '../../platform/zod.js';
import type { Same } from '../../platform/api-doc.js';
import { TARGET_TYPES } from '../report/targets.js';
import { ACTION_TARGET_TYPES, type ActionResult } from './actions.js';
import type { QueueEntry } from './queue.js';

/** What the moderation routes (lib/transport/routes/moderation-*.ts) answer, for the OpenAPI document (lib/platform/api-doc.ts; docs/moderation.md, "Moderation"). */
export const moderatorOnly = "Needs a login token whose request-context roles hold moderator or admin; an access key is 403.";
const target = z.object({ type: z.enum(TARGET_TYPES), id: z.string() });

export const queueEntry = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('reports'),
    target,
    preview: z.string(),
    author: z.object({ openid: z.string(), nickname: z.string() }),
    vid: z.optional(z.string()),
    report_count: z.number(),
    reasons: z.record(z.string(), z.number()),
    oldest_report_at: z.string(),
    latest_report_at: z.string(),
    own: z.optional(z.literal(true)),
  }),
  z.object({
    kind: z.literal('held'),
    held_id: z.string(),
    target,
    author: z.object({ openid: z.string(), nickname: z.string() }),
    vid: z.optional(z.string()),
    fields: z.array(z.string()),
    text: z.record(z.string(), z.string()),
    held_at: z.string(),
    removed: z.optional(z.object({ vid: z.string(), removed_at: z.string(), removed_by: z.string(), note: z.optional(z.string()) })),
    own: z.optional(z.literal(true)),
  }),
]);
export const actionResult = z.object({
  target: z.object({ type: z.enum(ACTION_TARGET_TYPES), id: z.string() }),
  action: z.enum(['remove', 'dismiss', 'suspend', 'approve']),
  state: z.enum(['actioned', 'dismissed']),
  outcome: z.union([z.enum(['content_removed', 'author_suspended', 'content_approved']), z.null()]),
  reports: z.number(),
  decided_at: z.string(),
  content: z.optional(target),
});
const shapesMatch: [Same<z.output<typeof queueEntry>, QueueEntry>, Same<z.output<typeof actionResult>, ActionResult>] = [true, true];
void shapesMatch;

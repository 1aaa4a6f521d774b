import * as z from '../../platform/zod.js';
import { defineRouteDoc, type Same } from '../../platform/api-doc.js';
import { REASONS } from '../report/reports.js';
import { TARGET_TYPES } from '../report/targets.js';
import { ACTION_TARGET_TYPES, actionBodySchema, type ActionResult } from './actions.js';
import { QUEUE_PAGE_MAX, queueQuerySchema, type QueueEntry } from './queue.js';

/** The moderation routes in the OpenAPI document (lib/platform/api-doc.ts; docs/moderation.md, "Moderation"). */
const moderatorOnly = "Needs a login token whose request-context roles hold moderator or admin; an access key is 403.";
const target = z.object({ type: z.enum(TARGET_TYPES), id: z.string() });

const queueEntry = z.discriminatedUnion('kind', [
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
const actionResult = z.object({
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

export const moderationQueueDoc = defineRouteDoc({
  tag: 'Moderation',
  summary: 'The moderation queue: one entry per reported target with open reports and one per held item, oldest first across both',
  description: `${moderatorOnly} Oldest first across both kinds: a case by its oldest open report, a held item by when it was held. A case (\`kind: "reports"\`): the target, a preview of the content as last reported (a comment's text, a video's title, a user's nickname), its author, the open report count and the counts by reason (${REASONS.join(', ')}), the oldest and latest open report times. Held content (\`kind: "held"\`, docs/moderation.md "Filter"): its \`held_id\` (the action's target id, with type \`held\`), what it holds (a comment by the cid it is held under, a video, a user's profile field), its author, a comment's vid, the fields a hold term matched with their held text, \`held_at\`, and for a video whose content or external_id a moderator removed before, \`removed\` (that vid, who removed it, when, the decision's note). An entry about the caller or the caller's content has \`own: true\`: another moderator or an administrator decides it. \`limit\` 1-${QUEUE_PAGE_MAX} (default 20); \`next_cursor\` continues the list and is null on the last page.`,
  query: queueQuerySchema,
  success: { status: 200, kind: 'json', data: z.object({ items: z.array(queueEntry), next_cursor: z.union([z.string(), z.null()]) }) },
  errors: [401, 403],
  examples: [
    {
      summary: 'A reported comment, then a held nickname',
      query: { limit: '20' },
      data: {
        items: [
          {
            kind: 'reports',
            target: { type: 'comment', id: 'c_01' },
            preview: 'buy cheap watches at ...',
            author: { openid: 'u_9f2c4e1a7b', nickname: 'Expo fan 7b' },
            vid: 'v_8k2m4q',
            report_count: 3,
            reasons: { spam: 2, abusive: 1 },
            oldest_report_at: '2026-01-05T10:00:00.000Z',
            latest_report_at: '2026-01-05T11:30:00.000Z',
          },
          {
            kind: 'held',
            held_id: 'hd_QUNDT1VOVCN1XzNhMWIKSEVMRCN1c2VyI25pY2tuYW1lCjdLcTJtUjl4VGI0Wg',
            target: { type: 'user', id: 'u_3a1b' },
            author: { openid: 'u_3a1b', nickname: 'Booth 12' },
            fields: ['nickname'],
            text: { nickname: 'add me on wechat 加微信' },
            held_at: '2026-01-05T10:20:00.000Z',
          },
        ],
        next_cursor: null,
      },
    },
  ],
});

export const moderationActionDoc = defineRouteDoc({
  tag: 'Moderation',
  summary: "A decision on a target's open reports (remove the content, dismiss the reports, suspend the author) or on held content (approve, remove)",
  description: `${moderatorOnly} One transaction: the content change (a comment becomes a tombstone; a video leaves the catalog, feeds, search and shares; the author's account is suspended), its audit event, and every open report of the target gets the outcome its reporter sees in my_reports. A repeat of the last decision answers it again and changes nothing; with no open report (or a target never reported) 404. \`remove\` on a user is 400 (suspend the account); Held content is named \`target: {type: "held", id: <held_id from the queue>}\`: \`approve\` publishes it as it would have been without the filter (a comment then takes its number and a new cid, given in \`content\`), \`remove\` discards it; each stores its audit event; \`reports\` is 0 and a case of the same content is not touched; once the item is gone (approved, discarded or withdrawn by its author) 404; an approval re-checks the author (deleted: 404; suspended, or a video's author without the editor or admin role: 403) and refuses a video a moderator removed (403), and one that cannot complete for such a reason leaves the item pending (a 429 or 503: approve again); \`remove\` while an approval is under way is 403; nobody decides on their own account or content (403: another moderator or an administrator does); \`dismiss\` or \`suspend\` on held content, or \`approve\` on a reported target, is 400; a moderator's \`suspend\` of an administrator or a moderator is 403 (an administrator's is not).`,
  body: actionBodySchema,
  success: { status: 200, kind: 'json', data: actionResult },
  errors: [401, 403, 404],
  examples: [
    {
      summary: 'Remove a reported comment',
      body: { target: { type: 'comment', id: 'c_01' }, action: 'remove', note: 'advertising' },
      data: { target: { type: 'comment', id: 'c_01' }, action: 'remove', state: 'actioned', outcome: 'content_removed', reports: 3, decided_at: '2026-01-05T12:00:00.000Z' },
    },
    {
      summary: 'Approve a held comment',
      body: { target: { type: 'held', id: 'hd_QUNDT1VOVCN1XzNhMWIKSEVMRCNjb21tZW50I3ZfOGsybTRxI1FtOXZkR2d4TW1Ga1pBCjdLcTJtUjl4VGI0Wg' }, action: 'approve' },
      data: {
        target: { type: 'held', id: 'hd_QUNDT1VOVCN1XzNhMWIKSEVMRCNjb21tZW50I3ZfOGsybTRxI1FtOXZkR2d4TW1Ga1pBCjdLcTJtUjl4VGI0Wg' },
        action: 'approve',
        state: 'actioned',
        outcome: 'content_approved',
        reports: 0,
        decided_at: '2026-01-05T12:05:00.000Z',
        content: { type: 'comment', id: 'c_02' },
      },
    },
  ],
});

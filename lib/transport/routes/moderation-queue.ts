import * as z from '../../platform/zod.js';
import { moderatorOnly, queueEntry } from '../../features/moderation/moderation-api.js';
import { moderationQueue, QUEUE_PAGE_MAX, queueQuerySchema } from '../../features/moderation/queue.js';
import { REASONS } from '../../features/report/reports.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'moderationQueue',
  description: 'The moderation queue: open report cases, oldest first (moderator JWT only)',
  // The open cases' index (gsi1, Query), then the cases and their authors (BatchGetItem); signed cursors.
  tables: { hub: { actions: ['BatchGetItem'], indexes: ['gsi1'] } },
  jwtSecret: true,
  routes: [{ method: 'GET', path: '/api/v1/moderation/reports' }],
  auth: 'moderator',
  request: { query: queueQuerySchema },
  doc: {
    tag: 'Moderation',
    summary: 'The moderation queue: one entry per reported target with open reports and one per held item, oldest first across both',
    description: `${moderatorOnly} Oldest first across both kinds: a case by its oldest open report, a held item by when it was held. A case (\`kind: "reports"\`): the target, a preview of the content as last reported (a comment's text, a video's title, a user's nickname), its author, the open report count and the counts by reason (${REASONS.join(', ')}), the oldest and latest open report times. Held content (\`kind: "held"\`, docs/moderation.md "Filter"): its \`held_id\` (the action's target id, with type \`held\`), what it holds (a comment by the cid it is held under, a video, a user's profile field), its author, a comment's vid, the fields a hold term matched with their held text, \`held_at\`, and for a video whose content or external_id a moderator removed before, \`removed\` (that vid, who removed it, when, the decision's note). An entry about the caller or the caller's content has \`own: true\`: another moderator or an administrator decides it. \`limit\` 1-${QUEUE_PAGE_MAX} (default 20); \`next_cursor\` continues the list and is null on the last page.`,
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
  },
  handler: async ({ query, principal }) => ({ data: await moderationQueue(query, principal?.user_id) }),
});
export const handler = route.handler;

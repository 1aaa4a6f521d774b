import { actionBodySchema, actionResult, takeAction } from '../../features/moderation/actions.js';
import { moderatorOnly } from '../../features/moderation/moderation-api.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'moderationAction',
  description: 'A moderation decision: remove, dismiss, suspend (moderator JWT only)',
  // The case, the comment's lookup, the video, the author (GetItem, BatchGetItem); one transaction of
  // the case, the content change and the audit event (Update, Put, Delete); a suspension as the
  // admin's (its key markers on apiKeys, after a Query of the keys). Approving held content posts
  // the comment as comment_set does (its transaction checks the video author's block list:
  // ConditionCheckItem) or publishes the video as POST /api/v1/videos does (search postings:
  // BatchWriteItem).
  tables: {
    apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] },
    hub: { actions: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem', 'BatchWriteItem'] },
  },
  timeoutSeconds: 30,
  routes: [{ method: 'POST', path: '/api/v1/moderation/actions' }],
  auth: 'moderator',
  request: { body: actionBodySchema },
  doc: {
    tag: 'Moderation',
    summary: "A decision on a target's open reports (remove the content, dismiss the reports, suspend the author) or on held content (approve, remove)",
    description: `${moderatorOnly} One transaction: the content change (a comment becomes a tombstone; a video leaves the catalog, feeds, search and shares; the author's account is suspended), its audit event, and every open report of the target gets the outcome its reporter sees in my_reports. A repeat of the last decision answers it again and changes nothing; with no open report (or a target never reported) 404. \`remove\` on a user is 400 (suspend the account); Held content is named \`target: {type: "held", id: <held_id from the queue>}\`: \`approve\` publishes it as it would have been without the filter (a comment then takes its number and a new cid, given in \`content\`), \`remove\` discards it; each stores its audit event; \`reports\` is 0 and a case of the same content is not touched; once the item is gone (approved, discarded or withdrawn by its author) 404; an approval re-checks the author (deleted: 404; suspended, or a video's author without the editor or admin role: 403) and refuses a video a moderator removed (403), and one that cannot complete for such a reason leaves the item pending (a 429 or 503: approve again); \`remove\` while an approval is under way is 403; nobody decides on their own account or content (403: another moderator or an administrator does); \`dismiss\` or \`suspend\` on held content, or \`approve\` on a reported target, is 400; a moderator's \`suspend\` of an administrator or a moderator is 403 (an administrator's is not).`,
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
  },
  handler: async ({ principal, body }) => ({ data: await takeAction(principal!, body) }),
});
export const handler = route.handler;

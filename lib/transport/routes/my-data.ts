import * as z from '../../platform/zod.js';
import { dataExportPageSchema } from '../../features/personal-data/data-export-api.js';
import { dataExportPage } from '../../features/personal-data/data-export.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'myData',
  description: "Download my data: everything stored about the caller's account, paged (login token only)",
  // The account's data export: the account (GetItem), one range at a time of its partition, its
  // comments (gsi1), shares (gsi2, then BatchGet) and videos (gsi2), its keys (apiKeys Query, their
  // guards' BatchGet) and their usage (the guard's GetItem, the old minute counters' Query); signed
  // cursors. docs/protected-api.md, "Download my data".
  tables: { apiKeys: { actions: ['Query', 'BatchGetItem', 'GetItem'] }, hub: { actions: ['GetItem', 'BatchGetItem', 'Query'], indexes: ['gsi1', 'gsi2'] } },
  jwtSecret: true,
  routes: [{ method: 'GET', path: '/api/v1/me/data' }],
  auth: 'jwt',
  request: { query: z.object({ cursor: z.optional(z.string()) }) },
  doc: {
    tag: 'Protected',
    summary: "Download my data: everything stored about the caller's account, in pages",
    description:
      'The account (first page only, the phone in full), then records of each section in order: `key` (no hash), `key_usage` (requests per UTC day, 30 days), `like`, `dislike`, `comment`, `report` (the reports the account filed), `follow`, `follower`, `block`, `view`, `feed_state` and `feed_call` (the recommender\'s data about the person), `share`, `invitation`, `video`, `held` (what the filter holds until a moderator approves it: docs/moderation.md, "Filter"), `audit`. `next_cursor` continues the export (signed, bound to the account; a forged or altered one is 400 naming `cursor`) and is null on the last page; a page may hold fewer records than the page size, even none. Each page reads at most 6 DynamoDB requests. A login token only (an access key is 401). See docs/protected-api.md, "Download my data".',
    success: { status: 200, kind: 'json', data: dataExportPageSchema },
    errors: [401],
    examples: [
      {
        summary: 'The first page',
        data: {
          format: 'expohub-personal-data/1',
          generated_at: '2026-11-25T19:00:00.000Z',
          account: {
            openid: 'u_9f2c4e1a7b',
            phone: '+8613800138000',
            nickname: '用户123456',
            signature: '',
            city: 'Shanghai',
            roles: [],
            roles_removed_at: {},
            created_at: '2026-01-05T08:30:00.000Z',
            updated_at: '2026-01-06T09:12:00.000Z',
            invited_by: null,
            suspended_at: null,
            terms_version: '1',
            terms_accepted_at: '2026-01-05T08:30:00.000Z',
            follow_count: 1,
            follower_count: 0,
            like_count: 1,
            liked_count: 0,
            video_count: 0,
          },
          records: [
            { type: 'like', vid: 'v_2Kq81', liked_at: '2026-01-05T09:00:00.000Z' },
            { type: 'follow', openid: 'u_77ab02c3d4', followed_at: '2026-01-05T09:05:00.000Z' },
          ],
          next_cursor: 'eyJ1IjoidV85ZjJjNGUxYTdiIiwicyI6InZpZXcifQ.Qm9vayBvZiBwYWdlcyAxMg',
        },
      },
    ],
  },
  handler: async ({ principal, query }) => ({ data: await dataExportPage(principal!, query) }),
});
export const handler = route.handler;

import * as z from '../../platform/zod.js';
import { defineRouteDoc } from '../../platform/api-doc.js';
import { auditDetails } from '../../platform/audit/audit-schema.js';
import { publicKeySchema } from '../keys/key-api.js';

/**
 * `GET /api/v1/me/data` in the OpenAPI document (lib/platform/api-doc.ts), and the shape of its answer: the
 * types the use case (data-export.ts) returns are these schemas' outputs, written once.
 */
const vids = z.array(z.string());

const account = z.object({
  openid: z.string(),
  /** In full (E.164): this is the account's own copy. */
  phone: z.string(),
  nickname: z.string(),
  signature: z.string(),
  city: z.string(),
  roles: z.array(z.string()),
  roles_removed_at: z.record(z.string(), z.string()),
  created_at: z.string(),
  updated_at: z.string(),
  invited_by: z.union([z.string(), z.null()]),
  suspended_at: z.union([z.string(), z.null()]),
  /** The terms of use accepted last, and when (docs/moderation.md, "Terms and contact"). */
  terms_version: z.union([z.string(), z.null()]),
  terms_accepted_at: z.union([z.string(), z.null()]),
  follow_count: z.number(),
  follower_count: z.number(),
  like_count: z.number(),
  liked_count: z.number(),
  video_count: z.number(),
});

const { user_id: _owner, key_prefix: _prefix, ...keyFields } = publicKeySchema.shape;

const record = z.discriminatedUnion('type', [
  z.object({ type: z.literal('key'), ...keyFields }),
  z.object({ type: z.literal('key_usage'), key_id: z.number(), days: z.array(z.object({ date: z.string(), requests: z.number() })) }),
  z.object({ type: z.literal('like'), vid: z.string(), liked_at: z.string() }),
  z.object({ type: z.literal('dislike'), vid: z.string(), disliked_at: z.string() }),
  z.object({ type: z.literal('comment'), cid: z.string(), vid: z.string(), seq: z.number(), content: z.string(), nickname: z.string(), created_at: z.string() }),
  z.object({
    type: z.literal('report'),
    id: z.string(),
    target_type: z.string(),
    target_id: z.string(),
    reason: z.string(),
    text: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
  z.object({ type: z.literal('follow'), openid: z.string(), followed_at: z.string() }),
  z.object({ type: z.literal('follower'), openid: z.string(), followed_at: z.string() }),
  z.object({ type: z.literal('block'), openid: z.string(), blocked_at: z.string() }),
  z.object({ type: z.literal('view'), seen_at: z.string(), vids }),
  z.object({
    type: z.literal('feed_state'),
    taste: z.record(z.string(), z.number()),
    taste_total: z.number(),
    disliked: vids,
    recent_likes: vids,
    updated_at: z.union([z.string(), z.null()]),
  }),
  z.object({ type: z.literal('feed_call'), at: z.string(), viewed: vids, served: vids, refresh: z.boolean(), deferred: vids, held: vids }),
  z.object({
    type: z.literal('share'),
    shareid: z.string(),
    vid: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
    d: z.string(),
    locale: z.string(),
    country: z.string(),
    open_count: z.number(),
    preview_count: z.number(),
  }),
  z.object({ type: z.literal('invitation'), openid: z.string(), invited_at: z.string() }),
  z.object({ type: z.literal('video'), vid: z.string(), tags: z.array(z.string()), created_at: z.string() }),
  z.object({
    type: z.literal('held'),
    target_type: z.enum(['comment', 'video', 'user']),
    target_id: z.string(),
    fields: z.array(z.string()),
    text: z.record(z.string(), z.string()),
    held_at: z.string(),
  }),
  z.object({ type: z.literal('audit'), id: z.string(), at: z.string(), action: z.string(), actor: z.string(), details: auditDetails }),
]);

const page = z.object({
  format: z.literal('expohub-personal-data/1'),
  generated_at: z.string(),
  account: z.optional(account),
  records: z.array(record),
  next_cursor: z.union([z.string(), z.null()]),
});

export type AccountData = z.output<typeof account>;
export type ExportRecord = z.output<typeof record>;
export type DataExportPage = z.output<typeof page>;
/** A section of the export (data-export.ts reads them in order); the cursor names the one it continues. */
export type SectionName = 'key' | 'key_usage' | 'like' | 'dislike' | 'comment' | 'report' | 'follow' | 'follower' | 'block' | 'view' | 'feed' | 'share' | 'invitation' | 'video' | 'held' | 'audit';

export const dataExportDoc = defineRouteDoc({
  tag: 'Protected',
  summary: "Download my data: everything stored about the caller's account, in pages",
  description:
    'The account (first page only, the phone in full), then records of each section in order: `key` (no hash), `key_usage` (requests per UTC day, 30 days), `like`, `dislike`, `comment`, `report` (the reports the account filed), `follow`, `follower`, `block`, `view`, `feed_state` and `feed_call` (the recommender\'s data about the person), `share`, `invitation`, `video`, `held` (what the filter holds until a moderator approves it: docs/moderation.md, "Filter"), `audit`. `next_cursor` continues the export (signed, bound to the account; a forged or altered one is 400 naming `cursor`) and is null on the last page; a page may hold fewer records than the page size, even none. Each page reads at most 6 DynamoDB requests. A login token only (an access key is 401). See docs/protected-api.md, "Download my data".',
  query: z.object({ cursor: z.optional(z.string()) }),
  success: { status: 200, kind: 'json', data: page },
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
});

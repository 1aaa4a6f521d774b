import * as z from '../../platform/zod.js';
import { auditDetails } from '../../platform/audit/audit-schema.js';
import { publicKeySchema } from '../keys/key-api.js';

/**
 * The shape of `GET /api/v1/me/data`'s answer (lib/transport/routes/my-data.ts), for the OpenAPI document (lib/platform/api-doc.ts): the
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

export const dataExportPageSchema = z.object({
  format: z.literal('expohub-personal-data/1'),
  generated_at: z.string(),
  account: z.optional(account),
  records: z.array(record),
  next_cursor: z.union([z.string(), z.null()]),
});

export type AccountData = z.output<typeof account>;
export type ExportRecord = z.output<typeof record>;
export type DataExportPage = z.output<typeof dataExportPageSchema>;
/** A section of the export (data-export.ts reads them in order); the cursor names the one it continues. */
export type SectionName = 'key' | 'key_usage' | 'like' | 'dislike' | 'comment' | 'report' | 'follow' | 'follower' | 'block' | 'view' | 'feed' | 'share' | 'invitation' | 'video' | 'held' | 'audit';

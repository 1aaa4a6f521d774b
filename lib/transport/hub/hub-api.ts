import type { Same } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { exampleVideo, videoViewSchema } from '../../entities/catalog/video-view-schema.js';
import type { OwnProfile, PublicUser } from '../../entities/accounts/accounts.js';
import type { RelationPage } from '../../entities/social/follows.js';
import type { BlockedPage, BlockResult } from '../../entities/social/blocks.js';
import { deletionData, exampleDeletion } from '../../features/deletion/deletion-api.js';
import { exampleTerms, termsStatusSchema } from '../../features/policies/policies-api.js';
import { REASONS, RECEIVED_MESSAGE, type ReportView } from '../../features/report/reports.js';
import { TARGET_TYPES } from '../../features/report/targets.js';

/**
 * The hub's `do` operations in the OpenAPI document: each operation's query schema is its own
 * (operations.ts); this adds what the document says besides: a summary, the schema of the answer's
 * `data` where one is written down, and examples (validated in test/unit/openapi.test.ts). Every
 * `do` of HUB_OPERATIONS needs an entry (the generator refuses to build without one).
 */
export interface HubOperationDoc {
  summary: string;
  /** The answer's `data`. */
  data: z.ZodMiniType;
  examples: { summary: string; query: Record<string, string>; data?: unknown }[];
}

const OPENID = 'u_9f2c4e1a7b';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1XzlmMmM0ZTFhN2IifQ.c2lnbmF0dXJl';
const signedIn = { openid: OPENID, token: TOKEN };
/** `held: true`: the caller's own comment held by the filter, seen by its author only (docs/moderation.md, "Filter"). */
const comment = z.object({ cid: z.string(), vid: z.string(), openid: z.string(), nickname: z.string(), content: z.string(), created_at: z.string(), held: z.optional(z.literal(true)) });
const exampleComment = { cid: 'c_01', vid: 'v_8k2m4q', openid: OPENID, nickname: 'Expo fan 7b', content: 'Great booth!', created_at: '2026-01-05T09:00:00.000Z' };
const follow = z.object({ follow_user: z.string(), following: z.boolean(), follower_count: z.number() });
const publicUser = z.object({ openid: z.string(), nickname: z.string(), signature: z.string(), city: z.string(), followed_by_me: z.boolean(), follows_me: z.boolean() });
const relationPage = z.object({ list: z.array(publicUser), total: z.number(), next_offset: z.number() });
const blockResult = z.object({ block_user: z.string(), blocked: z.boolean() });
/** `state`: docs/moderation.md, "Blocking" (a deleted account stays listed; `lapsed`: the block cannot follow the person). */
const blockedPage = z.object({
  list: z.array(z.object({ openid: z.string(), nickname: z.string(), blocked_at: z.string(), state: z.enum(['active', 'deleted', 'lapsed']) })),
  total: z.number(),
  next_offset: z.number(),
});
const profileFields = {
  openid: z.string(),
  nickname: z.string(),
  signature: z.string(),
  city: z.string(),
  follow_count: z.number(),
  follower_count: z.number(),
  like_count: z.number(),
  liked_count: z.number(),
  video_count: z.number(),
};
/** The caller's own profile: the phone masked (`+86 138****8000`). */
const ownProfile = z.object({ ...profileFields, phone: z.string() });
/** get_fav's profile: the caller's own, or with `view` another user's public one: no phone, and how the caller and they follow each other. */
const favProfile = z.union([ownProfile, z.object({ ...profileFields, followed_by_me: z.boolean(), follows_me: z.boolean() })]);

const reportView = z.object({
  id: z.string(),
  target: z.object({ type: z.enum(TARGET_TYPES), id: z.string() }),
  reason: z.enum(REASONS),
  text: z.string(),
  state: z.enum(['open', 'actioned', 'dismissed']),
  outcome: z.union([z.enum(['content_removed', 'author_suspended', 'content_approved']), z.null()]),
  created_at: z.string(),
  updated_at: z.string(),
  decided_at: z.union([z.string(), z.null()]),
});
const exampleReport = {
  id: 'r_4Fq9Zt2Lm8Xc1Vb7',
  target: { type: 'comment', id: 'c_01' },
  reason: 'spam',
  text: 'an advert',
  state: 'open',
  outcome: null,
  created_at: '2026-01-05T10:00:00.000Z',
  updated_at: '2026-01-05T10:00:00.000Z',
  decided_at: null,
};
const reportMatches: Same<z.output<typeof reportView>, ReportView> = true;
void reportMatches;

/** change_*: the profile others see; a value the filter held adds `held: true` and `pending`, the held values by field. */
const profileChange = z.object({
  profile: ownProfile,
  held: z.optional(z.literal(true)),
  pending: z.optional(z.object({ nickname: z.optional(z.string()), signature: z.optional(z.string()), city: z.optional(z.string()) })),
});
// The schemas and the types the use cases return must agree: tsc fails when one drifts.
const shapesMatch: [
  Same<z.output<typeof publicUser>, PublicUser>,
  Same<z.output<typeof relationPage>, RelationPage>,
  Same<z.output<typeof ownProfile>, OwnProfile>,
  Same<z.output<typeof blockResult>, BlockResult>,
  Same<z.output<typeof blockedPage>, BlockedPage>,
] = [true, true, true, true, true];
void shapesMatch;

export const HUB_DOCS: Record<string, HubOperationDoc> = {
  gen_code: {
    summary: 'Send a 6-digit sign-in code by SMS',
    data: z.object({ expires_in: z.number(), resend_in: z.number() }),
    examples: [{ summary: 'A Chinese mobile number', query: { phonenumber: '+8613800138000', nonce: 'device-nonce-01' }, data: { expires_in: 300, resend_in: 60 } }],
  },
  create_phone_account: {
    summary: 'Sign up or sign in with the received code',
    data: z.object({ openid: z.string(), token: z.string(), new_account: z.boolean(), expires_at: z.string(), terms: termsStatusSchema }),
    examples: [
      {
        summary: 'First sign-in on a device, accepting the terms the app shows',
        query: { openid: '+8613800138000', token: 'device-nonce-01', code: '123456', openid0: '', token0: '', terms_version: '1' },
        data: { openid: OPENID, token: TOKEN, new_account: true, expires_at: '2026-02-04T08:30:00.000Z', terms: exampleTerms },
      },
    ],
  },
  get_next_list: {
    summary: 'The feed: recommended, hot, new, search or "more like this"',
    data: z.object({ list: z.array(videoViewSchema), fav_index: z.string() }),
    examples: [
      { summary: 'Anonymous, 5 new videos', query: { openid: 'anonymous-device', order: 'new', watch_count: '5' }, data: { list: [exampleVideo], fav_index: '' } },
      { summary: 'Search', query: { ...signedIn, q: 'booth', view_list: 'v_1,v_2' } },
    ],
  },
  get_fav: {
    summary: "The caller's profile and a list (liked, history, commented)",
    data: z.object({ profile: favProfile, list: z.array(videoViewSchema), next_id: z.number() }),
    examples: [{ summary: 'My likes, first page', query: { ...signedIn, next_id: '0', fav_index: '0', watch_list: 'like', view: '', q: '' } }],
  },
  get_follow: {
    summary: 'Users an account follows, newest first',
    data: relationPage,
    examples: [{ summary: 'Whom I follow', query: { ...signedIn, watch_list: '', offset: '0' } }],
  },
  get_follower: {
    summary: 'Users following an account, newest first',
    data: relationPage,
    examples: [{ summary: 'My followers', query: { ...signedIn, watch_list: '', offset: '0' } }],
  },
  like: {
    summary: 'Like a video (idempotent; clears a dislike)',
    data: z.object({ vid: z.string(), liked: z.literal(true), like_count: z.number() }),
    examples: [{ summary: 'Like a video', query: { ...signedIn, vid: 'v_8k2m4q' }, data: { vid: 'v_8k2m4q', liked: true, like_count: 13 } }],
  },
  dislike: {
    summary: 'Mark a video "not interested"',
    data: z.object({ vid: z.string(), disliked: z.literal(true), like_count: z.number() }),
    examples: [{ summary: 'Dislike a video', query: { ...signedIn, vid: 'v_8k2m4q', action: 'dislike' }, data: { vid: 'v_8k2m4q', disliked: true, like_count: 12 } }],
  },
  comment_set: {
    summary: 'Comment on a video',
    data: z.object({ comment, comment_count: z.number(), held: z.optional(z.literal(true)) }),
    examples: [{ summary: 'A comment', query: { ...signedIn, vid: 'v_8k2m4q', content: 'Great booth!' }, data: { comment: exampleComment, comment_count: 4 } }],
  },
  comment_get: {
    summary: 'Comments of a video, newest first, 20 per page',
    data: z.object({ list: z.array(comment), page: z.number(), page_size: z.number(), total: z.number(), has_more: z.boolean() }),
    examples: [{ summary: 'Page 1', query: { ...signedIn, vid: 'v_8k2m4q', page: '1', d: '' }, data: { list: [exampleComment], page: 1, page_size: 20, total: 1, has_more: false } }],
  },
  comment_delete: {
    summary: 'Delete your own comment: a tombstone in place, numbering and comment_count unchanged (a held comment, by the cid comment_set answered: withdrawn from the moderation queue); again: the same answer',
    data: z.object({ comment, deleted: z.literal(true) }),
    examples: [
      {
        summary: 'Delete a comment',
        query: { ...signedIn, vid: 'v_8k2m4q', cid: 'c_01' },
        data: { comment: { ...exampleComment, openid: '', nickname: '', content: '' }, deleted: true },
      },
    ],
  },
  report: {
    summary: 'Report a video, a comment or a user to the moderators (one open report per target; a repeat updates it)',
    data: z.object({ report: reportView, message: z.string() }),
    examples: [
      {
        summary: 'Report a comment as spam',
        query: { ...signedIn, target: 'comment', id: 'c_01', reason: 'spam', text: 'an advert' },
        data: { report: exampleReport, message: RECEIVED_MESSAGE },
      },
    ],
  },
  my_reports: {
    summary: 'Your reports, newest first, 20 a page, each with its state and outcome',
    data: z.object({ list: z.array(reportView), cursor: z.string() }),
    examples: [
      {
        summary: 'A report that led to removal',
        query: { ...signedIn },
        data: { list: [{ ...exampleReport, state: 'actioned', outcome: 'content_removed', decided_at: '2026-01-05T12:00:00.000Z' }], cursor: '' },
      },
    ],
  },
  sharetext: {
    summary: 'Share text and link of a video',
    data: z.object({ text: z.string(), url: z.string(), shareid: z.string() }),
    examples: [
      {
        summary: 'Chinese share text, anonymous (openid is not stored)',
        query: { openid: OPENID, vid: 'v_8k2m4q', d: '', locale: 'zh-CN', country: 'CN' },
        data: { text: 'Booth tour: hall 3 https://share.example.com/s/Qm7xT2kLp9VbN4rZc8Hd', url: 'https://share.example.com/s/Qm7xT2kLp9VbN4rZc8Hd', shareid: 'Qm7xT2kLp9VbN4rZc8Hd' },
      },
      {
        summary: "Signed in: the account's share",
        query: { ...signedIn, vid: 'v_8k2m4q', d: '', locale: 'en', country: 'CN' },
        data: { text: 'Watch "Booth tour: hall 3" on expohub: https://share.example.com/s/K2rq8mZp4xTaW6nYe3Ju', url: 'https://share.example.com/s/K2rq8mZp4xTaW6nYe3Ju', shareid: 'K2rq8mZp4xTaW6nYe3Ju' },
      },
    ],
  },
  follow_user: {
    summary: 'Follow a user (idempotent)',
    data: follow,
    examples: [{ summary: 'Follow', query: { ...signedIn, follow_user: 'u_0a1b2c3d4e' }, data: { follow_user: 'u_0a1b2c3d4e', following: true, follower_count: 8 } }],
  },
  unfollow_user: {
    summary: 'Unfollow a user (idempotent)',
    data: follow,
    examples: [{ summary: 'Unfollow', query: { ...signedIn, follow_user: 'u_0a1b2c3d4e' }, data: { follow_user: 'u_0a1b2c3d4e', following: false, follower_count: 7 } }],
  },
  block_user: {
    summary: 'Block a user (idempotent; ends follows both ways; private: docs/moderation.md, "Blocking")',
    data: blockResult,
    examples: [{ summary: 'Block', query: { ...signedIn, block_user: 'u_0a1b2c3d4e' }, data: { block_user: 'u_0a1b2c3d4e', blocked: true } }],
  },
  unblock_user: {
    summary: 'Unblock a user (idempotent; ended follows stay ended; a deleted account in the list too)',
    data: blockResult,
    examples: [{ summary: 'Unblock', query: { ...signedIn, block_user: 'u_0a1b2c3d4e' }, data: { block_user: 'u_0a1b2c3d4e', blocked: false } }],
  },
  get_blocked: {
    summary: 'The accounts I blocked, newest block first, 20 per page',
    data: blockedPage,
    examples: [
      {
        summary: 'First page',
        query: { ...signedIn, offset: '0' },
        data: {
          list: [
            { openid: 'u_0a1b2c3d4e', nickname: 'Booth hunter', blocked_at: '2026-01-05T09:00:00.000Z', state: 'active' },
            { openid: 'u_9f8e7d6c5b', nickname: '', blocked_at: '2026-01-04T18:00:00.000Z', state: 'deleted' },
          ],
          total: 2,
          next_offset: -1,
        },
      },
    ],
  },
  change_nickname: { data: profileChange, summary: 'Change the nickname (1-30 characters)', examples: [{ summary: 'Rename', query: { ...signedIn, nickname: 'Booth hunter' } }] },
  change_signature: { data: profileChange, summary: 'Change the signature (0-200 characters)', examples: [{ summary: 'A signature', query: { ...signedIn, signature: 'At every expo.' } }] },
  change_city: { data: profileChange, summary: 'Change the city (0-50 characters)', examples: [{ summary: 'A city', query: { ...signedIn, city: 'Shanghai' } }] },
  delete_account: {
    summary: 'Delete my account (confirm=delete; a login token only): refused everywhere at once, erased in the background (docs/accounts.md)',
    data: deletionData,
    examples: [{ summary: 'Delete the account', query: { ...signedIn, confirm: 'delete' }, data: { deletion: exampleDeletion } }],
  },
  accept_terms: {
    summary: 'Accept the terms version the client shows (a login token only), after GET /api/v1/me said accepted_current: false',
    data: z.object({ terms: termsStatusSchema }),
    examples: [{ summary: 'Accept version 2', query: { ...signedIn, terms_version: '2' }, data: { terms: { ...exampleTerms, accepted_version: '2', current_version: '2' } } }],
  },
};

import * as z from '../../platform/zod.js';
import { TARGET_TYPES } from '../report/targets.js';

/** What the moderation routes (lib/transport/routes/moderation-*.ts) answer, for the OpenAPI document (lib/platform/api-doc.ts; docs/moderation.md, "Moderation"). */
export const moderatorOnly = "Needs a login token whose request-context roles hold moderator or admin; an access key is 403.";
const target = z.object({ type: z.enum(TARGET_TYPES), id: z.string() });

export const queueEntry = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('reports'),
    target,
    /** The content as last reported: a comment's text, a video's title, a user's nickname. */
    preview: z.string(),
    /** The account whose content it is (for a user: the user), with its current nickname ('' when deleted). */
    author: z.object({ openid: z.string(), nickname: z.string() }),
    /** A comment's video. */
    vid: z.optional(z.string()),
    report_count: z.number(),
    reasons: z.record(z.string(), z.number()),
    oldest_report_at: z.string(),
    latest_report_at: z.string(),
    /** Present (true) when the case is about the caller or the caller's content: another moderator or an administrator decides it. */
    own: z.optional(z.literal(true)),
  }),
  z.object({
    kind: z.literal('held'),
    held_id: z.string(),
    /** What it holds: a comment (the cid it is held under; approved, it is posted with a new one), a video (its vid), a user's profile field (the openid). */
    target,
    /** The author, with the current nickname ('' when deleted). */
    author: z.object({ openid: z.string(), nickname: z.string() }),
    /** A held comment's video. */
    vid: z.optional(z.string()),
    /** The fields a `hold` term matched, and the held text of each (a video: title and description, and each held tag). */
    fields: z.array(z.string()),
    text: z.record(z.string(), z.string()),
    held_at: z.string(),
    /** A held video: the earlier video of the same content or external_id that a moderator removed (who, when, the decision's note). */
    removed: z.optional(z.object({ vid: z.string(), removed_at: z.string(), removed_by: z.string(), note: z.optional(z.string()) })),
    /** Present (true) when the caller is the author: another moderator or an administrator decides it. */
    own: z.optional(z.literal(true)),
  }),
]);

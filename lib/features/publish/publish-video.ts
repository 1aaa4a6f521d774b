import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import type { dryRunSchema } from './publish-api.js';
import type { Principal } from '../auth/principal.js';
import { toVideoView, videoViews } from '../../entities/catalog/video-view.js';
import { commentKeys } from '../../entities/comments/comments.js';
import type { VideoView } from '../../entities/catalog/video-view-schema.js';
import { getVideo, putVideo, removalOf, vidOfExternalId } from '../../entities/catalog/videos.js';
import { afterCommit } from '../../platform/db/failures.js';
import { ForbiddenError } from '../../platform/errors.js';
import { countMetric } from '../../platform/observability/metrics.js';
import { checkedText, isBlank, NOT_BLANK, textIssues } from '../../platform/text.js';
import { getAccount } from '../../entities/accounts/accounts.js';
import { PUBLISHING_ROLES } from '../../entities/accounts/roles.js';
import { heldVid, holdVideo } from '../filter/held-items.js';
import { checkFields } from '../filter/terms.js';


const line = (max: number, min = 0, shown = false) =>
  checkedText(
    z
      .string({ error: 'must be a string' })
      .check(
        z.trim(),
        z.minLength(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`),
        z.maxLength(max, `must be at most ${max} characters`),
        // A line people see (a title, a tag): not blank either.
        z.refine((v) => !shown || v.length === 0 || !isBlank(v), NOT_BLANK),
      ),
  );

// The text check first: the URL parser would silently percent-encode a NUL or a lone surrogate.
const httpsUrl = documentAs(
  checkedText(z.string({ error: 'must be a string' }).check(z.trim(), z.maxLength(2048, 'must be at most 2048 characters'))).check(
    z.refine((s) => {
      try {
        const url = new URL(s);
        return url.protocol === 'https:' && url.hostname.length > 0;
      } catch {
        return false;
      }
    }, 'must be an https:// URL'),
  ),
  { pattern: '^\\s*[Hh][Tt][Tt][Pp][Ss]://[^/?#\\s]+' },
  'add',
);

export const publishVideoSchema = z.strictBody({
  title: line(120, 1, true),
  description: z.pipe(
    z.optional(z.string({ error: 'must be a string' }).check(z.trim(), z.maxLength(2000, 'must be at most 2000 characters'), z.superRefine(textIssues(true)))),
    z.transform((s: string | undefined) => s ?? ''),
  ),
  video_url: httpsUrl,
  cover_url: httpsUrl,
  duration_s: z
    .number({ error: 'must be a number of seconds' })
    .check(z.int('must be a whole number of seconds'), z.minimum(1, 'must be at least 1'), z.maximum(36000, 'must be at most 36000')),
  tags: z.pipe(
    z.optional(z.array(line(30, 1, true), { error: 'must be an array of strings' }).check(z.maxLength(10, 'must hold at most 10 tags'))),
    z.transform((tags: string[] | undefined) => [...new Set(tags ?? [])]),
  ),
  external_id: z.optional(line(128, 1)),
});

export type PublishVideoInput = z.input<typeof publishVideoSchema>;

const DRY_RUN_VALUES = ['', 'true', 'false', '1', '0'] as const;
/** `?dry_run=true`: check everything a publish checks and write nothing (beyond the contract; docs/protected-api.md). */
export const publishQuerySchema = z.object({
  dry_run: z.pipe(
    z.optional(documentAs(z.string().check(z.trim(), z.refine((v) => (DRY_RUN_VALUES as readonly string[]).includes(v), 'must be true or false')), { type: 'string', enum: [...DRY_RUN_VALUES] })),
    z.transform((v: string | undefined) => v === 'true' || v === '1'),
  ),
});

/** The answer of a dry run: what the publish would do, and the video an update would change (its schema: lib/features/publish/publish-api.ts). */
export type PublishDryRun = z.output<typeof dryRunSchema>;

/**
 * `POST /api/v1/videos`. Authorized by the caller's STORED roles, read now: an access key carries
 * no roles, but it has the full capability of its creator (docs/protected-api.md, "Who may do what"),
 * and a role granted or withdrawn after a token or key was issued takes effect on the next request.
 * The same (author, external_id) updates that video (putVideo's guard item makes this safe under retries
 * and concurrent publishes).
 */
export async function publishVideo(principal: Principal, publish: PublishRequest): Promise<{ video: VideoView; created: boolean; held?: true }> {
  const { account, input, held } = await checkedPublish(publish);
  if (Object.keys(held).length > 0) return holdPublish(account, input, held);
  const { video, created, replayed } = await putVideo({ author_openid: account.openid, ...input });
  // A new video or an update by external_id; a retry answered with the first publish's video is not another.
  if (!replayed) countMetric('Publishes');
  const fromWhatWasRead = () => toVideoView(video, account.nickname, { liked: false, disliked: false });
  // Created by this very request: the author's name was read above, and nobody can have marked the
  // video yet, so the answer needs no read.
  if (created && !replayed) return { video: fromWhatWasRead(), created };
  // Published: should the read for the answer fail, answer with the names read before (the
  // publisher's own marks as unknown, i.e. false) rather than a 503 for a video that exists.
  const [view] = await afterCommit('video view', () => videoViews([video], principal.user_id, commentKeys.commented), () => [fromWhatWasRead()]);
  return { video: view!, created };
}

/**
 * The role, read now (the route runs it before the body is parsed: a caller without the role is 403
 * whatever the body holds): what a publish and its dry run both check first.
 */
export async function authorizePublisher(principal: Principal) {
  const account = await getAccount(principal.user_id, true);
  if (!account || !(account.roles ?? []).some((role) => (PUBLISHING_ROLES as readonly string[]).includes(role))) {
    throw new ForbiddenError('Publishing videos needs the editor or admin role');
  }
  return account;
}

/** A publish as the route hands it over: the publisher's account (authorizePublisher), the body as the schema outputs it, and the tags as sent. */
export interface PublishRequest {
  account: Awaited<ReturnType<typeof authorizePublisher>>;
  input: z.output<typeof publishVideoSchema>;
  /** The body's `tags` as sent (before trimming and dropping repeats): the filter names a tag by its index there. */
  sentTags: readonly string[];
}

/** The body's tags as sent, for PublishRequest.sentTags (the schema has checked they are strings). */
export const sentTagsOf = (body: unknown): string[] => ((body as { tags?: string[] } | undefined)?.tags ?? []).slice();

/** The filter on a publish the route has authorized and parsed. */
async function checkedPublish({ account, input, sentTags: sent }: PublishRequest) {
  // The filter (docs/moderation.md, "Filter"): a `reject` term is 400 naming the field, a tag by its
  // index as sent (`tags.2`), as the schema names it; each tag as it is stored and shown (trimmed).
  // A repeated tag is checked once, under its first index.
  const sentTags = sent.map((tag) => tag.trim());
  const tagFields = sentTags.flatMap((tag, i) => (sentTags.indexOf(tag) === i ? [[`tags.${i}`, tag] as const] : []));
  const fields: Record<string, string> = { title: input.title, description: input.description, ...Object.fromEntries(tagFields) };
  const { held } = await checkFields(fields);
  return { account, input, held: Object.fromEntries(held.map((name) => [name, fields[name]!])) };
}

/** The video an `external_id` of the author names, if any (the guard item putVideo writes, then its video), and the vid it names (its video may be gone: removed). */
async function videoOfExternalId(author: string, externalId: string | undefined) {
  if (externalId === undefined) return {};
  const vid = await vidOfExternalId(author, externalId);
  return vid ? { vid, video: await getVideo(vid, true) } : {};
}

/**
 * A publish a `hold` term matched: held (lib/features/filter/held.ts) until a moderator approves it; nothing
 * of it is in the catalog meanwhile (an update leaves the published video as it was). The answer
 * shows the video as it will be published, with `held: true`.
 */
async function holdPublish(account: { openid: string; nickname: string }, input: z.output<typeof publishVideoSchema>, heldFields: Record<string, string>) {
  const linked = await videoOfExternalId(account.openid, input.external_id);
  const existing = linked.video;
  // A new video's vid follows from what is held (the external_id, else the content): a retried
  // publish holds the same vid again, and its approval can create only one video. Never a vid a
  // moderator removed (heldVid steps over it; the held item shows the removal).
  const derived = existing ? undefined : await heldVid(`${account.openid}\n${input.external_id ?? JSON.stringify(input)}`, linked.vid ? await removalOf(linked.vid) : undefined);
  const vid = existing?.vid ?? derived!.vid;
  const held = await holdVideo({ ...input, vid, author_openid: account.openid }, heldFields, derived?.removed);
  const preview = { ...input, vid, author_openid: account.openid, created_at: existing?.created_at ?? held.at, like_count: existing?.like_count ?? 0, comment_count: existing?.comment_count ?? 0, share_count: existing?.share_count ?? 0 };
  return { video: toVideoView(preview, account.nickname, { liked: false, disliked: false }), created: !existing, held: true as const };
}

/**
 * `POST /api/v1/videos?dry_run=true`: the same role and body checks as a publish, then whether it
 * would create a video or update the one its `external_id` names (strongly consistent reads of the
 * guard item putVideo writes and of its video). Writes nothing, so it is not a publish in the metrics either.
 * Without `external_id` the answer is `create`: only a publish within 10 minutes of an identical
 * one is recognized as its retry (docs/protected-api.md), which is not what a dry run is for.
 */
export async function dryRunPublish(publish: PublishRequest): Promise<PublishDryRun> {
  const { account, input } = await checkedPublish(publish);
  if (input.external_id === undefined) return { dry_run: true, action: 'create', vid: null };
  // As putVideo decides: a guard whose video is gone is a new video.
  const existing = (await videoOfExternalId(account.openid, input.external_id)).video;
  return existing ? { dry_run: true, action: 'update', vid: existing.vid } : { dry_run: true, action: 'create', vid: null };
}

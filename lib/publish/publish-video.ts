import * as z from '../zod.js';
import type { Principal } from '../auth/principal.js';
import { toVideoView, videoViews, type VideoView } from '../catalog/video-view.js';
import { putVideo } from '../catalog/videos.js';
import { afterCommit } from '../db/failures.js';
import { ForbiddenError, ValidationError } from '../errors.js';
import { countMetric } from '../observability/metrics.js';
import { checkedText, textIssues } from '../text.js';
import { getAccount } from '../hub/accounts.js';

/** The roles that may publish, read from the account item at request time (CONTRACT §5). */
const PUBLISHER_ROLES = ['editor', 'admin'];

const line = (max: number, min = 0) =>
  checkedText(
    z
      .string({ error: 'must be a string' })
      .check(z.trim(), z.minLength(min, min === 1 ? 'must not be empty' : `must be at least ${min} characters`), z.maxLength(max, `must be at most ${max} characters`)),
  );

// The text check first: the URL parser would silently percent-encode a NUL or a lone surrogate.
const httpsUrl = checkedText(z.string({ error: 'must be a string' }).check(z.trim(), z.maxLength(2048, 'must be at most 2048 characters'))).check(
  z.refine((s) => {
    try {
      const url = new URL(s);
      return url.protocol === 'https:' && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, 'must be an https:// URL'),
);

export const publishVideoSchema = z.object({
  title: line(120, 1),
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
    z.optional(z.array(line(30, 1), { error: 'must be an array of strings' }).check(z.maxLength(10, 'must hold at most 10 tags'))),
    z.transform((tags: string[] | undefined) => [...new Set(tags ?? [])]),
  ),
  external_id: z.optional(line(128, 1)),
});

export type PublishVideoInput = z.input<typeof publishVideoSchema>;

/**
 * `POST /api/v1/videos`. Authorized by the caller's STORED roles, read now: an access key carries
 * no roles, but it has the full capability of its creator (seed 001 §5), and a role granted or
 * withdrawn after a token or key was issued takes effect on the next request. The same
 * (author, external_id) updates that video (putVideo's guard item makes this safe under retries
 * and concurrent publishes).
 */
export async function publishVideo(principal: Principal, body: unknown): Promise<{ video: VideoView; created: boolean }> {
  const account = await getAccount(principal.user_id, true);
  if (!account || !(account.roles ?? []).some((role) => PUBLISHER_ROLES.includes(role))) {
    throw new ForbiddenError('Publishing videos needs the editor or admin role');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ValidationError('The request body must be a JSON object');
  const input = publishVideoSchema.parse(body);
  const { video, created, replayed } = await putVideo({ author_openid: account.openid, ...input });
  // A new video or an update by external_id; a retry answered with the first publish's video is not another.
  if (!replayed) countMetric('Publishes');
  const fromWhatWasRead = () => toVideoView(video, account.nickname, { liked: false, disliked: false });
  // Created by this very request: the author's name was read above, and nobody can have marked the
  // video yet, so the answer needs no read.
  if (created && !replayed) return { video: fromWhatWasRead(), created };
  // Published: should the read for the answer fail, answer with the names read before (the
  // publisher's own marks as unknown, i.e. false) rather than a 503 for a video that exists.
  const [view] = await afterCommit('video view', () => videoViews([video], principal.user_id), () => [fromWhatWasRead()]);
  return { video: view!, created };
}

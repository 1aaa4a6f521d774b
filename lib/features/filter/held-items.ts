// Held content (docs/moderation.md, "Filter"): what a `hold` term matched, stored apart until a
// moderator approves or discards it (lib/features/filter/held.ts). This module holds the items and the
// author's reads of them.
import { itemParser } from '../../platform/db/item-check.js';
import { createHash } from 'node:crypto';
import { DeleteCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { accountKeys, liveAccountCheck } from '../../entities/accounts/accounts.js';
import { clock } from '../../platform/clock.js';
import { db, tableNames } from '../../platform/db/client.js';
import { timeKey } from '../../platform/db/keys.js';
import { ForbiddenError, NotFoundError, UnavailableError, ValidationError } from '../../platform/errors.js';
import { config } from '../../platform/config.js';
import { cancellationCode, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { rateLimitedError, rateLimitItem, type RateLimit } from '../../platform/limits/rate-windows.js';
import { newCommentId, randomBase62 } from '../../platform/ids.js';
import type { VideoInput } from '../../entities/catalog/video-items.js';
import { removalOf, type VideoRemoval } from '../../entities/catalog/videos.js';

export type HeldTargetType = 'comment' | 'video' | 'user';
export type ProfileField = 'nickname' | 'signature' | 'city';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const heldKeys = {
  /** Every held item sorts under this prefix in its author's partition (erased with the account). */
  prefix: 'HELD#',
  /** A held comment: one per (video, text), so a retried comment_set holds it once. */
  comment: (openid: string, vid: string, digest: string) => ({ pk: `ACCOUNT#${openid}`, sk: `HELD#comment#${vid}#${digest}` }),
  commentsOfVideoPrefix: (vid: string) => `HELD#comment#${vid}#`,
  /** A held profile field: one per field, the latest held value replaces an earlier one. */
  profileField: (openid: string, field: ProfileField) => ({ pk: `ACCOUNT#${openid}`, sk: `HELD#user#${field}` }),
  profilePrefix: 'HELD#user#',
  /** A held comment its author withdrew (comment_delete): what a repeat of the withdrawal answers, kept WITHDRAWN_DAYS. */
  withdrawnComment: (openid: string, cid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `WITHDRAWN#${cid}` }),
  /** A held video: one per vid (a new video's vid is drawn when it is held). */
  video: (openid: string, vid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `HELD#video#${vid}` }),
  /** gsi1: the queue of every held item, oldest first (one partition: held items are few). */
  queueIndex: (atIso: string, nonce: string) => ({ gsi1pk: 'HELD', gsi1sk: timeKey(atIso, nonce) }),
  queuePartition: 'HELD',
};

/** A held item as stored. */
/** The checked parse of a held item. */
export const heldFromItem = (item: Record<string, unknown> | undefined) => heldParse(item);

/** The checked parse of a withdrawn held comment's marker. */
const withdrawnFromItem = itemParser<{ vid?: string; created_at?: string }>('withdrawn held comment', { entity: 'held_withdrawn', optional: { vid: 'string', created_at: 'string' } });

export interface HeldItem {
  pk: string;
  sk: string;
  entity: 'held';
  /** Tells apart two holds of the same key (a profile field held again): part of the held id. */
  nonce: string;
  target_type: HeldTargetType;
  /** cid (the id the comment is held under; it is given a number, and a new cid, on approval), vid, or the openid for profile fields. */
  target_id: string;
  author: string;
  /** The fields a `hold` term matched (content; nickname, signature or city; title, description, `tags.<n>`). */
  fields: string[];
  /** The held text of each field it holds (a video: title and description, and each held tag). */
  text: Record<string, string>;
  /** When it was held (ISO 8601). */
  at: string;
  /** `approving` once an approval has begun (its writes are repeated until the item is gone). */
  state: 'pending' | 'approving';
  /** A held comment's video. */
  vid?: string;
  /** A held video: the whole publish, applied on approval. */
  video?: VideoInput & { vid: string };
  /** A held video: the earlier video of the same content or external_id that a moderator removed (its vid is not published again). */
  removed?: VideoRemoval;
}

/** A held item as the queue and its author see it: the stored fields, named by its `held_id`. */
export type HeldView = Pick<HeldItem, 'target_type' | 'target_id' | 'author' | 'fields' | 'text' | 'at' | 'vid' | 'removed'> & { held_id: string };

const TABLE = () => tableNames.hub;

/** The held id: the item's key and nonce (base64url), so an action finds the item with one read and never acts on a later hold of the same key. */
export const heldIdOf = (item: Pick<HeldItem, 'pk' | 'sk' | 'nonce'>) => `hd_${Buffer.from(`${item.pk}\n${item.sk}\n${item.nonce}`, 'utf8').toString('base64url')}`;

/** Whether a key given by a client (a held id, a queue cursor) can name a held item. */
export const isHeldItemKey = (pk: unknown, sk: unknown): boolean => typeof pk === 'string' && typeof sk === 'string' && pk.startsWith('ACCOUNT#') && sk.startsWith(heldKeys.prefix);

export function parseHeldId(heldId: string): { key: { pk: string; sk: string }; nonce: string } {
  const parts = /^hd_[A-Za-z0-9_-]{1,600}$/.test(heldId) ? Buffer.from(heldId.slice(3), 'base64url').toString('utf8').split('\n') : [];
  const [pk, sk, nonce] = parts;
  if (parts.length !== 3 || !isHeldItemKey(pk, sk) || !nonce) throw new ValidationError('Invalid parameter "held_id": not a held item id');
  return { key: { pk: pk!, sk: sk! }, nonce };
}

export function heldView(item: HeldItem): HeldView {
  return {
    held_id: heldIdOf(item),
    target_type: item.target_type,
    target_id: item.target_id,
    author: item.author,
    fields: item.fields,
    text: item.text,
    at: item.at,
    ...(item.vid ? { vid: item.vid } : {}),
    ...(item.removed ? { removed: item.removed } : {}),
  };
}

function newHeld(key: { pk: string; sk: string }, fields: Omit<HeldItem, 'pk' | 'sk' | 'entity' | 'nonce' | 'at' | 'state'>): HeldItem & Record<string, unknown> {
  const at = clock.nowIso();
  const nonce = randomBase62(12);
  return { ...key, ...heldKeys.queueIndex(at, nonce), entity: 'held', nonce, at, state: 'pending', ...fields };
}

/**
 * The comment rate limit a held comment counts against: the same window as comment_set's, the
 * person's (lib/entities/comments/post-comment.ts; docs/hub-api.md, "comment_set"), so holding is no way around it.
 */
const commentLimit = (person: string): RateLimit => ({
  name: 'comments-minute',
  subject: person,
  windowSeconds: 60,
  max: config.RATE_COMMENTS_PER_MINUTE,
  message: `At most ${config.RATE_COMMENTS_PER_MINUTE} comments per minute; wait a moment`,
});

/**
 * Holds a comment (comment_set whose content a `hold` term matched): stored apart, without a number,
 * so no page and no comment_count moves; with a slot of the author's comment window and the checks
 * the plain path makes in its reservation (`checks`: the video's author has not blocked the
 * commenter), in one transaction (429 when full, 403 when blocked; nothing stored). A repeat of the
 * same text on the same video holds it once and is answered even when the window is full, as a
 * retried comment is.
 */
export async function holdComment(input: { openid: string; vid: string; content: string; person?: string }, notBlocked: TransactItem): Promise<HeldItem> {
  const digest = createHash('sha256').update(input.content).digest('base64url').slice(0, 22);
  const key = heldKeys.comment(input.openid, input.vid, digest);
  const item = newHeld(key, { target_type: 'comment', target_id: newCommentId(), author: input.openid, fields: ['content'], text: { content: input.content }, vid: input.vid });
  const now = clock.now();
  const limit = commentLimit(input.person ?? input.openid);
  try {
    await transactWrite([{ Put: { TableName: TABLE(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }, rateLimitItem(limit, now), notBlocked, liveAccountCheck(input.openid)]);
    return item;
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') {
      const existing = heldFromItem((await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true }))).Item);
      if (existing) return existing;
    }
    accountGone(error, 3);
    // Blocked by the video's author: the plain path's answer (docs/moderation.md, "Blocking").
    if (cancellationCode(error, 2) === 'ConditionalCheckFailed') throw new ForbiddenError('You cannot comment on this video');
    throw rateLimitedError(error, [limit], 1, now) ?? error;
  }
}

/**
 * A held item is written in its author's partition with the check that the account is not deleted,
 * in one transaction: one held after the deletion's first write would outlive the erasure
 * (docs/accounts.md, "Writes racing the deletion"). 404 as for every other write of a deleted account.
 */
function accountGone(error: unknown, index: number): void {
  if (cancellationCode(error, index) === 'ConditionalCheckFailed') throw new NotFoundError('Your account does not exist');
}

async function putHeld(item: HeldItem): Promise<HeldItem> {
  try {
    await transactWrite([{ Put: { TableName: TABLE(), Item: item } }, liveAccountCheck(item.author)]);
  } catch (error) {
    accountGone(error, 1);
    throw error;
  }
  return item;
}

/** Holds a profile field's new value: others keep seeing the current one; a later held value replaces this one. */
export async function holdProfileField(openid: string, field: ProfileField, value: string): Promise<HeldItem> {
  return putHeld(newHeld(heldKeys.profileField(openid, field), { target_type: 'user', target_id: openid, author: openid, fields: [field], text: { [field]: value } }));
}

/**
 * Holds a publish (POST /api/v1/videos whose title, description or a tag a `hold` term matched):
 * nothing of it is in the catalog (no feed, search, list or share page can show it) until approved.
 * `held` names the matched fields with their text (a tag as `tags.<index as sent>`). `vid` is the
 * video it will create (drawn now) or update (found by `external_id`); holding the same vid again
 * replaces the earlier hold.
 */
export async function holdVideo(video: VideoInput & { vid: string }, held: Record<string, string>, removed?: VideoRemoval): Promise<HeldItem> {
  const text = { title: video.title, description: video.description ?? '', ...held };
  return putHeld(newHeld(heldKeys.video(video.author_openid, video.vid), { target_type: 'video', target_id: video.vid, author: video.author_openid, fields: Object.keys(held), text, video, ...(removed ? { removed } : {}) }));
}

/** The vid of a held new video, derived from `seed` (10 base62 characters, as newVid draws them). */
function derivedVid(seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  return Array.from(digest.subarray(0, 10), (b) => alphabet[b % 62]).join('');
}

/** How many removed vids in a row a held new video's derivation steps over before it refuses the content (403). */
const MAX_REMOVED_STEPS = 8;

/**
 * The vid of a held new video: derived from `seed`, so a retried publish holds the same one. A vid a
 * moderator removed is never published again: the derivation steps to the next vid (derived from the
 * seed and the removed vid, so a retry steps the same way), and `removed` tells the queue about the
 * latest removal met (`linkedRemoval`: the video an external_id named, removed).
 */
export async function heldVid(seed: string, linkedRemoval?: VideoRemoval): Promise<{ vid: string; removed?: VideoRemoval }> {
  let vid = derivedVid(seed);
  let removed = linkedRemoval;
  for (let step = 0; step <= MAX_REMOVED_STEPS; step++) {
    const removal = await removalOf(vid);
    if (!removal) return { vid, ...(removed ? { removed } : {}) };
    removed = removal;
    vid = derivedVid(`${seed}\n${vid}`);
  }
  throw new ForbiddenError('This content was removed by moderators too often to be published again');
}

/** How long a withdrawn held comment answers a repeat of its withdrawal (the marker's TTL). */
const WITHDRAWN_DAYS = 30;

/**
 * The author withdraws a held comment (comment_delete with the cid comment_set answered it with):
 * the held item leaves the queue and their page, and a marker answers a repeat, in one transaction.
 * Not audited, as the author's deletion of a comment is not. Returns undefined when `cid` is no held
 * comment of theirs on `vid`, withdrawn or not (comment_delete answers 404); 503 while a moderator's
 * approval of it is under way (it is published or back to pending when that ends).
 */
export async function withdrawHeldComment(openid: string, vid: string, cid: string): Promise<{ cid: string; vid: string; created_at: string } | undefined> {
  const item = (await heldOfAuthor(openid, heldKeys.commentsOfVideoPrefix(vid))).find((h) => h.target_id === cid);
  const markerKey = heldKeys.withdrawnComment(openid, cid);
  if (!item) {
    const marker = withdrawnFromItem((await db.send(new GetCommand({ TableName: TABLE(), Key: markerKey, ConsistentRead: true }))).Item);
    return marker?.vid === vid ? { cid, vid, created_at: marker.created_at ?? '' } : undefined;
  }
  if (item.state !== 'pending') throw new UnavailableError('A moderator is approving this comment right now; retry in a moment', 5);
  const expiresAt = clock.now() + WITHDRAWN_DAYS * 86_400_000;
  try {
    await transactWrite([
      { Delete: { TableName: TABLE(), Key: { pk: item.pk, sk: item.sk }, ConditionExpression: 'nonce = :n AND #state = :pending', ExpressionAttributeNames: { '#state': 'state' }, ExpressionAttributeValues: { ':n': item.nonce, ':pending': 'pending' } } },
      { Put: { TableName: TABLE(), Item: { ...markerKey, entity: 'held_withdrawn', cid, vid, created_at: item.at, withdrawn_at: clock.nowIso(), ttl: Math.ceil(expiresAt / 1000) } } },
    ]);
  } catch (error) {
    // Approved, discarded or withdrawn meanwhile: look again.
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') return withdrawHeldComment(openid, vid, cid);
    throw error;
  }
  return { cid, vid, created_at: item.at };
}

/** Drops a held value of a profile field (the author set the field to a value the filter let through). */
export async function clearHeldProfileField(openid: string, field: ProfileField): Promise<void> {
  await db.send(new DeleteCommand({ TableName: TABLE(), Key: heldKeys.profileField(openid, field) }));
}

async function heldOfAuthor(openid: string, prefix: string): Promise<HeldItem[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': accountKeys.account(openid).pk, ':prefix': prefix },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []) as HeldItem[];
}

/** The author's held comments on a video, newest first (comment_get shows them to their author on page 1). */
export async function heldCommentsOf(openid: string, vid: string): Promise<HeldItem[]> {
  return (await heldOfAuthor(openid, heldKeys.commentsOfVideoPrefix(vid))).sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
}

/** The author's held profile values, by field (what the author sees as pending). */
export async function heldProfileOf(openid: string): Promise<Partial<Record<ProfileField, string>>> {
  const pending: Partial<Record<ProfileField, string>> = {};
  for (const item of await heldOfAuthor(openid, heldKeys.profilePrefix)) {
    const field = item.fields[0] as ProfileField;
    pending[field] = item.text[field]!;
  }
  return pending;
}

/** Every held item of an account (its data export): one Query of its partition's held range. */
export async function heldOfAccount(openid: string): Promise<HeldView[]> {
  return (await heldOfAuthor(openid, heldKeys.prefix)).map(heldView);
}


const heldParse = itemParser<HeldItem>('held', {
  entity: 'held',
  required: { nonce: 'string', target_type: 'string', target_id: 'string', author: 'string', fields: 'list', text: 'map', at: 'string', state: 'string' },
  optional: { vid: 'string', video: 'map' },
});

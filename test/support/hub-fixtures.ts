import { randomBytes, randomInt } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { batchGetHubItems, itemId } from '../../lib/platform/db/batch.js';
import { accountItem, accountKeys, accountRecord } from '../../lib/entities/accounts/accounts.js';
import type { Role } from '../../lib/entities/accounts/roles.js';
import { auditKeys } from '../../lib/platform/audit/trail.js';
import type { VideoItem } from '../../lib/entities/catalog/video-items.js';
import { settleStreams, type apiClient, type ApiResponse } from './stack.js';
import { tokenFor } from './tokens.js';
import { likeItem } from '../../lib/entities/catalog/reaction-items.js';
import { feedKeys } from '../../lib/features/recommend/feed-state.js';
import { videoKeys, videoPartitions } from '../../lib/entities/catalog/video-items.js';

type Api = ReturnType<typeof apiClient>;

/** `GET /api/v1?do=<op>&...`: every parameter in the query string, as the mobile client sends them. */
export function hub<T = unknown>(api: Api, op: string, params: Record<string, string | number | undefined> = {}, headers?: Record<string, string>): Promise<ApiResponse<T>> {
  const query = new URLSearchParams({ do: op });
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, String(v));
  return api.get<T>(`/api/v1?${query.toString()}`, { headers });
}

/** A random, valid Chinese mobile number in E.164 (+86 138 xxxx xxxx). */
export function newPhone(): string {
  return `+86138${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
}

export const newNonce = () => randomBytes(12).toString('base64url');

interface DevSms {
  messages: { phone: string; code: string; text: string; sent_at: string }[];
}

/** The newest code the local SMS channel (`GET /_dev/sms`) holds for a phone. */
export async function latestCode(api: Api, phone: string): Promise<string> {
  const res = await api.get<DevSms>(`/_dev/sms?phone=${encodeURIComponent(phone)}`);
  const code = res.data?.messages[0]?.code;
  if (res.status !== 200 || !code) throw new Error(`no SMS for ${phone}: ${res.status} ${JSON.stringify(res.body)}`);
  return code;
}

export interface SignedUp {
  openid: string;
  token: string;
  new_account: boolean;
  expires_at: string;
  phone: string;
}

/**
 * gen_code -> read the code at `/_dev/sms` -> create_phone_account. Limits apply as in production:
 * one code per phone per 60 s (move `clock` forward to sign the same phone in again) and 50 codes per
 * source IP per hour per test file (every request comes from 127.0.0.1).
 */
export async function signUp(api: Api, phone = newPhone(), extra: { invite_uid?: string; openid0?: string; token0?: string } = {}): Promise<SignedUp> {
  const nonce = newNonce();
  const sent = await hub(api, 'gen_code', { phonenumber: phone, nonce });
  if (sent.status !== 200) throw new Error(`gen_code failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  const code = await latestCode(api, phone);
  const res = await hub<Omit<SignedUp, 'phone'>>(api, 'create_phone_account', { openid: phone, token: nonce, code, openid0: '', token0: '', ...extra });
  if (res.status !== 200) throw new Error(`create_phone_account failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...res.data, phone };
}

// Direct store fixtures: put items through the entity modules' key builders -----------------

const TABLE = () => tableNames.hub;

/** A video item as the catalog stores it, without the ranking attributes putVideo maintains. */
export type TestVideo = Omit<VideoItem, 'updated_at' | 'gsi3sk' | 'external_id'>;

/** A video item as the catalog stores it (author must be an openid; it need not have an account). */
export async function putTestVideo(author: string, fields: Partial<Omit<TestVideo, 'author_openid'>> = {}): Promise<TestVideo> {
  const vid = fields.vid ?? `v${randomBytes(6).toString('hex')}`;
  const created = fields.created_at ?? clock.nowIso();
  const video: TestVideo = {
    vid,
    title: `Video ${vid}`,
    description: 'An exhibition walk-through',
    cover_url: `https://cdn.example.com/${vid}.jpg`,
    video_url: `https://cdn.example.com/${vid}.mp4`,
    duration_s: 60,
    tags: ['expo'],
    author_openid: author,
    created_at: created,
    like_count: 0,
    comment_count: 0,
    share_count: 0,
    ...fields,
  };
  await db.send(
    new PutCommand({
      TableName: TABLE(),
      Item: { ...videoKeys.video(vid), ...videoKeys.videosIndex(created, vid), ...videoKeys.authorIndex(author, created, vid), entity: 'video', ...video },
    }),
  );
  return video;
}

/** Accounts written straight into the store (no SMS), with a login JWT each: for tests needing many users. */
/** An account written straight into the table, with a valid session token. */
export type TestAccount = { openid: string; token: string; nickname: string };

export async function putTestAccounts(count: number, roles: Role[] = []): Promise<TestAccount[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const openid = `u_test${randomBytes(8).toString('hex')}`;
      const nickname = `tester ${i}`;
      const now = clock.nowIso();
      await db.send(
        new PutCommand({
          TableName: TABLE(),
          Item: accountItem(accountRecord({ openid, phone: newPhone(), nickname, created_at: now, roles })),
        }),
      );
      return { openid, token: await tokenFor(openid, roles), nickname };
    }),
  );
}

/**
 * A like item as the `like` operation writes it (lib/features/recommend/reactions.ts), for reading lists: no
 * transaction with the liker's counter and feed state, no trend added (the stream still counts it
 * in the video's like_count and its author's liked_count).
 */
export async function putTestLike(openid: string, video: Pick<TestVideo, 'vid' | 'author_openid' | 'tags' | 'created_at'>, likedAt = clock.nowIso()): Promise<void> {
  await db.send(new PutCommand({ TableName: TABLE(), Item: likeItem(openid, video, likedAt, 0) }));
}

/** A view of `vid` at `seenAt` in the history list, as get_next_list records a call that reported it (lib/features/recommend/feed.ts). */
export async function putTestSeen(openid: string, vid: string, seenAt = clock.nowIso()): Promise<void> {
  await db.send(
    new PutCommand({
      TableName: TABLE(),
      Item: { ...feedKeys.viewHistory(openid, seenAt, vid), ...feedKeys.viewHistoryIndex(openid, seenAt, [vid]), entity: 'history', openid, seen_at: seenAt },
    }),
  );
}

/** One stored item, read strongly consistent. */
export async function getHubItem<T = Record<string, unknown>>(key: { pk: string; sk: string }): Promise<T | undefined> {
  // What the stream processor derives from earlier writes (counters, trends) is read once applied.
  await settleStreams();
  return (await db.send(new GetCommand({ TableName: TABLE(), Key: key, ConsistentRead: true }))).Item as T | undefined;
}

/**
 * An author's videos as stored, newest first: the author index (gsi2) lists them, the items are read
 * whole after it (the index holds only what the feed ranks by).
 */
export async function storedVideosOfAuthor(openid: string): Promise<VideoItem[]> {
  const out = await db.send(
    new QueryCommand({ TableName: TABLE(), IndexName: 'gsi2', KeyConditionExpression: 'gsi2pk = :p', ExpressionAttributeValues: { ':p': videoPartitions.author(openid) }, ScanIndexForward: false }),
  );
  const keys = (out.Items ?? []).map((i) => videoKeys.video(String(i.vid)));
  const items = await batchGetHubItems<VideoItem>(keys);
  return keys.map((k) => items.get(itemId(k))).filter((v): v is VideoItem => !!v);
}

/** The stored audit events of an account, oldest first (read strongly consistent). */
export async function storedAuditEvents(openid: string): Promise<{ type: string; actor: string; details: Record<string, unknown> }[]> {
  const out = await db.send(
    new QueryCommand({
      TableName: TABLE(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': accountKeys.account(openid).pk, ':prefix': auditKeys.auditPrefix },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []) as { type: string; actor: string; details: Record<string, unknown> }[];
}

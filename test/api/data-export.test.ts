import { beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { hashApiKey } from '../../lib/features/keys/key-material.js';
import { PAGE_REQUESTS, SECTION_ORDER } from '../../lib/features/personal-data/data-export.js';
import { dataExportPageSchema, type DataExportPage, type ExportRecord } from '../../lib/features/personal-data/data-export-api.js';
import { recordRequests, type RecordedRequest } from '../support/db-requests.js';
import { hub, newPhone, putTestVideo, signUp, type SignedUp, type TestVideo } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { DAY_MS, HOUR_MS, pinInsideWindow } from '../support/clock-windows.js';

/**
 * `GET /api/v1/me/data` (docs/protected-api.md, "Download my data"): every section of an account that
 * has one of everything, nothing of anyone else's, no secret, pages of PAGE records (the setting
 * DATA_EXPORT_PAGE_SIZE) at a bounded number of DynamoDB requests each, signed cursors.
 */
const PAGE = 3;
const api = useTestStack({ http: false, env: { DATA_EXPORT_PAGE_SIZE: String(PAGE) } });

const as = (u: SignedUp) => ({ openid: u.openid, token: u.token });
const ok = async <T>(res: Promise<{ status: number; body: unknown; data: T }>) => {
  const answer = await res;
  expect(answer.status, JSON.stringify(answer.body)).toBeOneOf([200, 201]);
  return answer.data;
};
const page = (token: string, cursor?: string) => api.get<DataExportPage>(`/api/v1/me/data${cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`}`, { token });

/** The requests the function made (the authorizer's session check, the first, left out). */
function functionRequests(requests: RecordedRequest[]): RecordedRequest[] {
  expect(requests[0]?.command).toBe('BatchGetItemCommand');
  return requests.slice(1);
}

/** Every page of the caller's export, and the DynamoDB requests each took. */
async function allPages(token: string) {
  const pages: { data: DataExportPage; requests: RecordedRequest[] }[] = [];
  let cursor: string | undefined;
  do {
    const { result, requests } = await recordRequests(() => page(token, cursor));
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    // Every page is the documented shape (the OpenAPI document's schema).
    const parsed = dataExportPageSchema.safeParse(result.data);
    expect(parsed?.success ? [] : parsed?.error?.issues).toEqual([]);
    pages.push({ data: result.data, requests: functionRequests(requests) });
    cursor = result.data.next_cursor ?? undefined;
    expect(pages.length).toBeLessThan(40);
  } while (cursor);
  return pages;
}

let alice: SignedUp;
let bob: SignedUp;
let inviter: SignedUp;
let carol: SignedUp;
let liked: TestVideo;
let disliked: TestVideo;
let viewed: TestVideo;
let own: TestVideo;
let aliceKey: { api_key: string; key: { id: number } };
let aliceKeyUsedAt: number;
let bobKey: string;
let shareid: string;

beforeAll(async () => {
  inviter = await signUp(api);
  alice = await signUp(api, newPhone(), { invite_uid: inviter.openid });
  bob = await signUp(api);
  carol = await signUp(api, newPhone(), { invite_uid: alice.openid });
  [liked, disliked, viewed] = [await putTestVideo(bob.openid), await putTestVideo(bob.openid), await putTestVideo(bob.openid)];
  own = await putTestVideo(alice.openid, { tags: ['booth'] });

  aliceKey = await ok(api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: alice.token, body: { name: 'export script' } }));
  // The key's one use at noon of yesterday (UTC; the export lists days up to today): the day its
  // usage is counted on is known, however slowly the file runs.
  aliceKeyUsedAt = pinInsideWindow(DAY_MS, 12 * HOUR_MS, -1);
  await ok(api.get('/api/v1/me', { token: aliceKey.api_key }));
  clock.reset();
  await ok(hub(api, 'like', { ...as(alice), vid: liked.vid }));
  await ok(hub(api, 'dislike', { ...as(alice), vid: disliked.vid, action: 'dislike' }));
  await ok(hub(api, 'comment_set', { ...as(alice), vid: liked.vid, content: 'Great booth' }));
  await ok(hub(api, 'follow_user', { ...as(alice), follow_user: bob.openid }));
  await ok(hub(api, 'get_next_list', { ...as(alice), view_list: viewed.vid }));
  shareid = (await ok(hub<{ shareid: string }>(api, 'sharetext', { ...as(alice), vid: liked.vid, d: 'alice-phone', locale: 'en', country: 'CN' }))).shareid;

  // Bob's own data, on the same videos and accounts: none of it is Alice's.
  bobKey = (await ok(api.post<{ api_key: string }>('/api/v1/api-keys', { token: bob.token, body: { name: 'bob pipeline' } }))).api_key;
  await ok(hub(api, 'like', { ...as(bob), vid: liked.vid }));
  await ok(hub(api, 'comment_set', { ...as(bob), vid: liked.vid, content: 'Bob was here' }));
  await ok(hub(api, 'follow_user', { ...as(bob), follow_user: alice.openid }));
  await ok(hub(api, 'sharetext', { ...as(bob), vid: liked.vid, d: 'bob-phone', locale: 'zh-CN', country: 'CN' }));
}, 60_000);

describe('GET /api/v1/me/data', () => {
  it('lists every section of an account with one of everything, in pages of at most PAGE records, nothing of another account and no secret', async () => {
    const pages = await allPages(alice.token);
    const [first, ...rest] = pages.map((p) => p.data);
    expect(first!.account).toEqual({
      openid: alice.openid,
      phone: alice.phone,
      nickname: expect.any(String),
      signature: '',
      city: '',
      roles: [],
      roles_removed_at: {},
      created_at: expect.any(String),
      updated_at: expect.any(String),
      invited_by: inviter.openid,
      suspended_at: null,
      terms_version: null,
      terms_accepted_at: null,
      follow_count: 1,
      follower_count: 1,
      like_count: 1,
      liked_count: 0,
      video_count: 0,
    });
    for (const p of rest) expect(p).not.toHaveProperty('account');
    for (const p of pages.map((x) => x.data)) {
      expect(p.format).toBe('expohub-personal-data/1');
      expect(p.generated_at).toBe(first!.generated_at);
      expect(p.records.length).toBeLessThanOrEqual(PAGE);
    }
    expect(pages.length).toBeGreaterThan(4);
    expect(pages[pages.length - 1]!.data.next_cursor).toBeNull();

    const records = pages.flatMap((p) => p.data.records);
    const of = <T extends ExportRecord['type']>(type: T) => records.filter((r) => r.type === type);
    const at = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);
    expect(of('key')).toEqual([
      {
        type: 'key',
        id: aliceKey.key.id,
        name: 'export script',
        key_hint: `ak_…${aliceKey.api_key.slice(-4)}`,
        scopes: [],
        expires_at: null,
        last_used_at: at,
        is_active: true,
        created_at: at,
        updated_at: at,
        status: 'valid',
        rate_limit_per_minute: 600,
      },
    ]);
    expect(of('key_usage')).toEqual([{ type: 'key_usage', key_id: aliceKey.key.id, days: [{ date: new Date(aliceKeyUsedAt).toISOString().slice(0, 10), requests: 1 }] }]);
    expect(of('like')).toEqual([{ type: 'like', vid: liked.vid, liked_at: at }]);
    expect(of('dislike')).toEqual([{ type: 'dislike', vid: disliked.vid, disliked_at: at }]);
    expect(of('comment')).toEqual([{ type: 'comment', cid: expect.any(String), vid: liked.vid, seq: 1, content: 'Great booth', nickname: first!.account!.nickname, created_at: at }]);
    expect(of('follow')).toEqual([{ type: 'follow', openid: bob.openid, followed_at: at }]);
    expect(of('follower')).toEqual([{ type: 'follower', openid: bob.openid, followed_at: at }]);
    expect(of('view')).toEqual([{ type: 'view', seen_at: at, vids: [viewed.vid] }]);
    expect(of('feed_state')).toEqual([
      { type: 'feed_state', taste: { expo: expect.any(Number) }, taste_total: expect.any(Number), disliked: [disliked.vid], recent_likes: [liked.vid], updated_at: at },
    ]);
    expect(of('feed_call')).toEqual([{ type: 'feed_call', at, viewed: [viewed.vid], served: expect.any(Array), refresh: false, deferred: [], held: expect.any(Array) }]);
    expect(of('share')).toEqual([
      { type: 'share', shareid, vid: liked.vid, created_at: at, expires_at: at, d: 'alice-phone', locale: 'en', country: 'CN', open_count: 0, preview_count: 0 },
    ]);
    expect(of('invitation')).toEqual([{ type: 'invitation', openid: carol.openid, invited_at: at }]);
    expect(of('video')).toEqual([{ type: 'video', vid: own.vid, tags: ['booth'], created_at: own.created_at }]);
    expect(of('audit')).toEqual([{ type: 'audit', id: expect.any(String), at, action: 'key.created', actor: alice.openid, details: { via: 'jwt', key_id: aliceKey.key.id, key_name: 'export script' } }]);
    // Each type above, and none other.
    expect(new Set(records.map((r) => r.type)).size).toBe(14);

    // The sections come in their order, each whole before the next.
    const sectionOf = (r: ExportRecord) => SECTION_ORDER.indexOf(r.type === 'feed_state' || r.type === 'feed_call' ? 'feed' : r.type);
    const order = records.map(sectionOf);
    expect(order).toEqual([...order].sort((a, b) => a - b));

    const text = JSON.stringify(pages.map((p) => p.data));
    for (const secret of [aliceKey.api_key, hashApiKey(aliceKey.api_key), alice.token, bobKey, hashApiKey(bobKey), 'key_hash', 'code_hash']) expect(text).not.toContain(secret);
    for (const others of ['Bob was here', 'bob pipeline', 'bob-phone', bob.phone, inviter.phone, carol.phone]) expect(text).not.toContain(others);
  });

  it(`reads at most ${PAGE_REQUESTS} DynamoDB requests a page, one range at a time, however many sections are empty`, async () => {
    // A new account: every section empty, so each page goes on to the next section until its budget is spent.
    const fresh = await signUp(api);
    const pages = await allPages(fresh.token);
    // 1 GetItem and the keys (a Query and their guards' BatchGet: 2 reserved, 1 used), then key usage
    // (5 reserved: the record, the guard, up to 3 pages of minute counters written before the guard
    // counted) and more sections, the reports (a Query that may need a BatchGet: 2 reserved, 1 used)
    // among them; then the block list and more; then the last ones, the held items among them
    // (docs/protected-api.md, "Download my data").
    expect(pages.map((p) => p.requests.length)).toEqual([2, 6, 6, 3]);
    for (const { requests } of pages) {
      expect(requests.length).toBeLessThanOrEqual(PAGE_REQUESTS);
      for (const r of requests) expect(['GetItemCommand', 'QueryCommand', 'BatchGetItemCommand']).toContain(r.command);
      // Each Query reads one partition of the account (its own, its index partitions, its keys).
      for (const r of requests.filter((x) => x.command === 'QueryCommand')) expect(JSON.stringify(r.input.ExpressionAttributeValues)).toContain(fresh.openid);
    }
    expect(pages.flatMap((p) => p.data.records)).toEqual([]);
    // And for the account with one of everything.
    for (const { requests } of await allPages(alice.token)) expect(requests.length).toBeLessThanOrEqual(PAGE_REQUESTS);
  });

  it('refuses a forged, altered or foreign cursor with 400 naming `cursor`, before reading anything', async () => {
    const cursor = (await page(alice.token)).data.next_cursor!;
    expect(cursor).toEqual(expect.any(String));
    const [payload, mac] = cursor.split('.') as [string, string];
    const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), u: bob.openid })).toString('base64url');
    // A cursor the server signed for another list (the accounts export: her own row, then Bob's).
    const other = (await ok(api.get<{ next_cursor: string }>('/api/v1/export/accounts?limit=1', { token: alice.token }))).next_cursor;
    expect(other).toEqual(expect.any(String));
    for (const bad of [
      `${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`,
      `${forgedPayload}.${mac}`,
      'garbage',
      other,
    ]) {
      const { result, requests } = await recordRequests(() => page(alice.token, bad));
      expect(result.status).toBe(400);
      expect(result.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"cursor"') });
      expect(functionRequests(requests)).toEqual([]);
    }
    // Alice's own cursor does not continue Bob's export.
    const bobs = await page(bob.token, cursor);
    expect(bobs.status).toBe(400);
    expect(bobs.body).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('is for a login token only: an access key, none or a bad one is 401', async () => {
    for (const token of [aliceKey.api_key, undefined, 'garbage']) {
      const res = await api.get('/api/v1/me/data', { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: expect.any(String), error: expect.any(String) });
    }
  });
});

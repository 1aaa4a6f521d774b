import { afterAll, beforeAll, describe, expect, it } from 'vitest';


import { clock } from '../../lib/platform/clock.js';
import type { AccountRow, CommentRow } from '../../lib/features/export/visibility.js';
import { maskPhone } from '../../lib/platform/sms/phone.js';
import { hub, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { apiClient, startTestStack } from '../support/stack.js';

interface Page<T> {
  items: T[];
  next_cursor: string | null;
}
type Kind = 'comments' | 'accounts';

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let admin: SignedUp;
let alice: SignedUp;
let bob: SignedUp;
let carol: SignedUp;
/** Follows the admin: must not learn the admin's roles. */
let dave: SignedUp;
const keys = new Map<string, string>();
const commentsBy = new Map<string, CommentRow[]>();

const exportPage = <T>(kind: Kind, token: string | undefined, query = '') => api.get<Page<T>>(`/api/v1/export/${kind}${query}`, { token });

/** Follows next_cursor to the end; fails on any non-200 page. */
async function exportAll<T>(kind: Kind, token: string, limit?: number): Promise<{ rows: T[]; pages: number }> {
  const rows: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const params = new URLSearchParams();
    if (limit !== undefined) params.set('limit', String(limit));
    if (cursor) params.set('cursor', cursor);
    const res = await exportPage<T>(kind, token, `?${params}`);
    expect(res.status).toBe(200);
    if (limit !== undefined) expect(res.data.items.length).toBeLessThanOrEqual(limit);
    rows.push(...res.data.items);
    cursor = res.data.next_cursor;
    pages += 1;
    expect(pages).toBeLessThan(100);
  } while (cursor);
  return { rows, pages };
}

async function comment(who: SignedUp, vid: string, content: string) {
  const res = await hub<{ comment: CommentRow }>(api, 'comment_set', { openid: who.openid, token: who.token, vid, content });
  expect(res.status).toBe(200);
  commentsBy.set(who.openid, [...(commentsBy.get(who.openid) ?? []), res.data.comment]);
}

async function follow(who: SignedUp, target: SignedUp) {
  const res = await hub(api, 'follow_user', { openid: who.openid, token: who.token, follow_user: target.openid });
  expect(res.status).toBe(200);
}

const byCid = (rows: CommentRow[]) => [...rows].sort((a, b) => a.cid.localeCompare(b.cid));
const allComments = () => [...commentsBy.values()].flat();

beforeAll(async () => {
  stack = await startTestStack({ http: false, env: { ENFORCE_KEY_SCOPES: 'false' } });
  api = apiClient(stack.url);
  admin = await signUp(api, ADMIN_PHONE);
  [alice, bob, carol] = [await signUp(api), await signUp(api), await signUp(api)];
  for (const who of [admin, alice, bob, carol]) {
    const res = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: who.token, body: { name: 'export script', scopes: ['export:read'] } });
    expect(res.status).toBe(201);
    keys.set(who.openid, res.data.api_key);
  }
  const vids: string[] = [];
  for (const title of ['Expo opening', 'Robot hall']) {
    const res = await api.post<{ video: { vid: string } }>('/api/v1/videos', {
      token: admin.token,
      body: { title, video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 60 },
    });
    expect(res.status).toBe(201);
    vids.push(res.data.video.vid);
  }
  await comment(alice, vids[0]!, 'first from alice');
  await comment(alice, vids[1]!, '第二条评论');
  await comment(alice, vids[0]!, 'third from alice\nwith a second line');
  await comment(bob, vids[0]!, 'bob was here');
  await comment(bob, vids[1]!, 'bob again');
  await comment(carol, vids[1]!, 'carol says hi');
  await comment(admin, vids[0]!, 'admin note');
  await follow(alice, bob);
  await follow(carol, alice);
  dave = await signUp(api);
  await follow(dave, admin);
});
afterAll(async () => stack?.stop());

describe('GET /api/v1/export/comments: rows by stored role, the same for a JWT and a key', () => {
  it('a non-admin gets exactly their own comments, every column', async () => {
    for (const who of [alice, bob, carol]) {
      for (const token of [who.token, keys.get(who.openid)!]) {
        const { rows } = await exportAll<CommentRow>('comments', token);
        expect(byCid(rows)).toEqual(byCid(commentsBy.get(who.openid)!));
      }
    }
  });

  it('an admin gets every comment, oldest first, with its JWT and with its key', async () => {
    for (const token of [admin.token, keys.get(admin.openid)!]) {
      const { rows } = await exportAll<CommentRow>('comments', token);
      expect(byCid(rows)).toEqual(byCid(allComments()));
      const times = rows.map((r) => r.created_at);
      expect(times).toEqual([...times].sort());
    }
  });

  it('a single page by default holds up to 100 rows and ends with next_cursor null', async () => {
    const res = await exportPage<CommentRow>('comments', admin.token);
    expect(res.status).toBe(200);
    expect(res.data.items).toHaveLength(7);
    expect(res.data.next_cursor).toBeNull();
  });

  it.each([1, 2, 3, 6, 7, 500])('cursor paging with limit=%i returns every row once', async (limit) => {
    const { rows, pages } = await exportAll<CommentRow>('comments', keys.get(admin.openid)!, limit);
    expect(rows.map((r) => r.cid).sort()).toEqual(allComments().map((c) => c.cid).sort());
    expect(new Set(rows.map((r) => r.cid)).size).toBe(rows.length);
    expect(pages).toBe(Math.max(1, Math.ceil(7 / limit)));
  });

  it('a role granted to a user widens their key\'s rows on the next request, and withdrawing it narrows them again', async () => {
    const key = keys.get(bob.openid)!;
    const setRoles = (roles: string[]) => api.post(`/api/v1/admin/users/${bob.openid}/roles`, { token: admin.token, body: { roles } });
    expect((await setRoles(['admin'])).status).toBe(200);
    try {
      expect((await exportAll<CommentRow>('comments', key)).rows).toHaveLength(7);
    } finally {
      expect((await setRoles([])).status).toBe(200);
    }
    expect(byCid((await exportAll<CommentRow>('comments', key)).rows)).toEqual(byCid(commentsBy.get(bob.openid)!));
  });
});

describe('GET /api/v1/export/accounts: rows and the phone column by stored role', () => {
  const masked = (who: SignedUp) => maskPhone(who.phone);

  it('a non-admin gets their own account (full phone) and the accounts they follow (masked phone)', async () => {
    for (const token of [alice.token, keys.get(alice.openid)!]) {
      const { rows } = await exportAll<AccountRow>('accounts', token);
      expect(rows.map((r) => r.openid)).toEqual([alice.openid, bob.openid]);
      expect(rows[0]).toEqual({
        openid: alice.openid,
        nickname: expect.any(String),
        signature: '',
        city: '',
        phone: alice.phone,
        roles: [],
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        follow_count: 1,
        follower_count: 1,
      });
      expect(rows[1]).toMatchObject({ openid: bob.openid, phone: masked(bob), follower_count: 1 });
      expect(rows[1]!.phone).toMatch(/^\+86 138\*+\d{4}$/);
      expect(rows[1]).not.toHaveProperty('roles');
    }
  });

  it("a non-admin who follows an admin does not learn the admin's roles", async () => {
    const rows = (await exportAll<AccountRow>('accounts', dave.token)).rows;
    expect(rows.map((r) => r.openid)).toEqual([dave.openid, admin.openid]);
    expect(rows[0]!.roles).toEqual([]);
    expect(rows[1]).not.toHaveProperty('roles');
    expect(JSON.stringify(rows)).not.toContain('admin"');
  });

  it('someone who follows nobody sees only their own account; a follower does not see their followers', async () => {
    const bobRows = (await exportAll<AccountRow>('accounts', keys.get(bob.openid)!)).rows;
    expect(bobRows).toEqual([expect.objectContaining({ openid: bob.openid, phone: bob.phone })]);
    const carolRows = (await exportAll<AccountRow>('accounts', carol.token)).rows;
    expect(carolRows.map((r) => [r.openid, r.phone])).toEqual([
      [carol.openid, carol.phone],
      [alice.openid, masked(alice)],
    ]);
  });

  it('an admin gets every account with full phones, with its JWT and with its key', async () => {
    for (const token of [admin.token, keys.get(admin.openid)!]) {
      const { rows } = await exportAll<AccountRow>('accounts', token);
      const phones = new Map(rows.map((r) => [r.openid, r.phone]));
      expect(phones).toEqual(new Map([admin, alice, bob, carol, dave].map((w) => [w.openid, w.phone])));
      expect(rows.find((r) => r.openid === admin.openid)?.roles).toEqual(['admin']);
    }
  });

  it.each([1, 2, 3])('cursor paging with limit=%i returns every row once (admin and non-admin)', async (limit) => {
    const all = await exportAll<AccountRow>('accounts', admin.token, limit);
    expect(all.rows.map((r) => r.openid).sort()).toEqual([admin, alice, bob, carol, dave].map((w) => w.openid).sort());
    const own = await exportAll<AccountRow>('accounts', keys.get(alice.openid)!, limit);
    expect(own.rows.map((r) => r.openid)).toEqual([alice.openid, bob.openid]);
  });
});

describe('since: incremental exports from a point in time', () => {
  it('comments: only rows created at or after since, for a non-admin and an admin, across pages and with a cursor from before', async () => {
    clock.advance(60_000);
    const mark = clock.nowIso();
    const vid = (await exportPage<CommentRow>('comments', admin.token, '?limit=1')).data.items[0]!.vid;
    await comment(alice, vid, 'after the mark 1');
    await comment(bob, vid, 'after the mark 2');
    await comment(alice, vid, 'after the mark 3');
    const newer = allComments().filter((c) => c.created_at >= mark);
    expect(newer).toHaveLength(3);

    const adminRows: CommentRow[] = [];
    let cursor: string | null = null;
    do {
      const res: Awaited<ReturnType<typeof exportPage<CommentRow>>> = await exportPage<CommentRow>('comments', admin.token, `?limit=2&since=${encodeURIComponent(mark)}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      adminRows.push(...res.data.items);
      cursor = res.data.next_cursor;
    } while (cursor);
    expect(adminRows.map((r) => r.content)).toEqual(['after the mark 1', 'after the mark 2', 'after the mark 3']);

    const own = await exportPage<CommentRow>('comments', alice.token, `?since=${encodeURIComponent(mark)}`);
    expect(own.data.items.map((r) => r.content)).toEqual(['after the mark 1', 'after the mark 3']);

    // A cursor of a run without since, positioned before the mark: the page starts at the mark.
    const early = await exportPage<CommentRow>('comments', admin.token, '?limit=1');
    const resumed = await exportPage<CommentRow>('comments', admin.token, `?since=${encodeURIComponent(mark)}&cursor=${early.data.next_cursor}`);
    expect(resumed.data.items.map((r) => r.content)).toEqual(['after the mark 1', 'after the mark 2', 'after the mark 3']);

    // The same instant written with an offset, and a date: the same rows.
    const offset = new Date(Date.parse(mark) + 8 * 3_600_000).toISOString().replace('Z', '+08:00');
    expect((await exportPage<CommentRow>('comments', alice.token, `?since=${encodeURIComponent(offset)}`)).data.items).toEqual(own.data.items);
    const byDate = await exportPage<CommentRow>('comments', alice.token, `?since=${mark.slice(0, 10)}`);
    expect(byDate.data.items.map((r) => r.cid)).toEqual(
      commentsBy
        .get(alice.openid)!
        .filter((c) => c.created_at >= `${mark.slice(0, 10)}T00:00:00.000Z`)
        .map((c) => c.cid),
    );
    // After everything: an empty last page.
    clock.advance(1000);
    const none = await exportPage<CommentRow>('comments', admin.token, `?since=${encodeURIComponent(clock.nowIso())}`);
    expect(none.data).toEqual({ items: [], next_cursor: null });
  });

  it('accounts: accounts created at or after since; for a non-admin, among their own and those they follow', async () => {
    clock.advance(60_000);
    const mark = clock.nowIso();
    const erin = await signUp(api);
    await follow(bob, erin);
    await follow(bob, carol);
    const since = `since=${encodeURIComponent(mark)}`;
    const admins = await exportPage<AccountRow>('accounts', admin.token, `?${since}`);
    expect(admins.data.items.map((r) => r.openid)).toEqual([erin.openid]);
    const bobs: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Awaited<ReturnType<typeof exportPage<AccountRow>>> = await exportPage<AccountRow>('accounts', keys.get(bob.openid)!, `?${since}&limit=1${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      bobs.push(...res.data.items.map((r) => r.openid));
      cursor = res.data.next_cursor;
    } while (cursor);
    expect(bobs).toEqual([erin.openid]);
    expect((await exportPage<AccountRow>('accounts', erin.token, `?${since}`)).data.items.map((r) => r.openid)).toEqual([erin.openid]);
    expect((await exportPage<AccountRow>('accounts', erin.token)).data.items.map((r) => r.openid)).toEqual([erin.openid]);
  });

  it.each(['yesterday', '2026-11-01T08:00:00', '2026-02-30', '2026-11-01T24:00:00Z', '2026-11-01T08:00:00+15:00', '1700000000'])(
    'since=%s is 400 naming since, on both exports',
    async (since) => {
      for (const kind of ['comments', 'accounts'] as const) {
        const res = await exportPage(kind, alice.token, `?since=${encodeURIComponent(since)}`);
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"since"') });
      }
    },
  );
});

describe('export errors', () => {
  const cursorOf = (key: Record<string, string>) => Buffer.from(JSON.stringify(key)).toString('base64url');

  it.each([
    ['not base64url', '?cursor=%24%24%24'],
    ['base64url of something that is not JSON', `?cursor=${Buffer.from('hello').toString('base64url')}`],
    ['a JSON array', `?cursor=${cursorOf({ 0: 'x' })}`],
    ['a key of another index', `?cursor=${cursorOf({ pk: 'a', sk: 'b' })}`],
  ])('a bad cursor (%s) is 400 naming cursor', async (_label, query) => {
    for (const kind of ['comments', 'accounts'] as const) {
      const res = await exportPage(kind, alice.token, query);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('cursor') });
    }
  });

  it("a cursor pointing into another user's rows is refused, not followed", async () => {
    const adminPage = await exportPage<CommentRow>('comments', admin.token, '?limit=1');
    const adminCursor = adminPage.data.next_cursor!;
    expect(adminCursor).toEqual(expect.any(String));
    const res = await exportPage('comments', alice.token, `?cursor=${adminCursor}`);
    expect(res.status).toBe(400);

    const bobPage = await exportPage<CommentRow>('comments', bob.token, '?limit=1');
    expect((await exportPage('comments', alice.token, `?cursor=${bobPage.data.next_cursor}`)).status).toBe(400);
    const bobAccounts = await exportPage<AccountRow>('accounts', bob.token, '?limit=1');
    expect((await exportPage('accounts', alice.token, `?cursor=${bobAccounts.data.next_cursor}`)).status).toBe(400);
  });

  it('a real cursor altered by one character, or used on the other export, is 400 (it never reaches DynamoDB)', async () => {
    const first = await exportPage<CommentRow>('comments', admin.token, '?limit=1');
    const cursor = first.data.next_cursor!;
    const bad = (c: string) => `?cursor=${encodeURIComponent(c)}`;
    for (const i of [0, Math.floor(cursor.length / 2), cursor.length - 1]) {
      const altered = cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1);
      const res = await exportPage('comments', admin.token, bad(altered));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('"cursor"') });
    }
    expect((await exportPage('accounts', admin.token, bad(cursor))).status).toBe(400);
    expect((await exportPage('comments', admin.token, bad(cursor))).status).toBe(200);
    // A key DynamoDB would reject as a start key (found by test/e2e/properties.test.ts), unsigned: 400, not 500.
    const forged = cursorOf({ pk: 'VIDEO#x', sk: 'COMMENT#000000000001', gsi2pk: 'COMMENTS', gsi2sk: 'x'.repeat(2000) });
    expect((await exportPage('comments', admin.token, bad(forged))).status).toBe(400);
  });

  it.each(['0', '501', 'abc', '-1', '1.5', ''])('limit=%s is 400 naming limit', async (limit) => {
    const res = await exportPage('comments', alice.token, `?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'VALIDATION_ERROR', error: expect.stringContaining('limit') });
  });

  it('without a credential, with a bad one or with a revoked key: 401 on both exports', async () => {
    const created = await api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: alice.token, body: { name: 'short-lived' } });
    expect((await exportPage('comments', created.data.api_key)).status).toBe(200);
    expect((await api.post(`/api/v1/api-keys/${created.data.key.id}/revoke`, { token: alice.token })).status).toBe(200);
    for (const kind of ['comments', 'accounts'] as const) {
      for (const token of [undefined, 'garbage', created.data.api_key]) {
        const res = await exportPage(kind, token);
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
      }
    }
  });
});

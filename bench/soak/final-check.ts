import { getVideo } from '../../lib/entities/catalog/videos.js';
import { inParallel } from '../../lib/platform/db/batch.js';
import type { SoakClient, SoakRequest } from './client.js';
import { compareFields, compareSets, type Ledger, type Mismatch } from './ledger.js';
import { hub, likeList, type SoakAccount } from './user.js';

/**
 * After the load: every count and every set of facts in the store against the ledger. Through the
 * API where it shows them (get_fav's profile and like list, get_follow / get_follower with their
 * totals, comment_get with its total, the key list and verify); from DynamoDB where no API shows a
 * number without changing something (a video's like_count; its comment_count is read both ways).
 */
export interface CheckResult {
  mismatches: Mismatch[];
  checked: { accounts: number; videos: number; keys: number; likes: number; follows: number; comments: number };
}

const MAX_PAGES = 10_000;

/** Every page of a list, following the answer's cursor (undefined when a page did not answer 200). */
async function allPages<T>(client: SoakClient, op: string, page: (cursor: number) => SoakRequest, read: (data: Record<string, unknown>) => { items: T[]; next: number | undefined }, first = 0): Promise<T[] | undefined> {
  const items: T[] = [];
  let cursor: number | undefined = first;
  for (let n = 0; cursor !== undefined && n < MAX_PAGES; n++) {
    const answer = await client.send(op, page(cursor));
    if (answer.status !== 200) return undefined;
    const out = read(answer.data);
    items.push(...out.items);
    cursor = out.next;
  }
  return items;
}

const unreadable = (entity: Mismatch['entity'], id: string, field: string): Mismatch => ({ entity, id, field, expected: 'readable', seen: 'no 200 answer' });
const nextOrEnd = (next: unknown) => (typeof next === 'number' && next >= 0 ? next : undefined);

async function checkAccount(client: SoakClient, ledger: Ledger, account: SoakAccount): Promise<Mismatch[]> {
  const { openid, token } = account;
  const out: Mismatch[] = [];
  const fav = await client.send('get_fav', hub('get_fav', { openid, token, ...likeList(1) }));
  if (fav.status === 200) out.push(...compareFields('account', openid, ledger.accountCounts(openid), fav.data.profile as Record<string, unknown>));
  else out.push(unreadable('account', openid, 'profile'));

  const liked = await allPages(
    client,
    'get_fav (like list)',
    (next_id) => hub('get_fav', { openid, token, ...likeList(50), next_id }),
    (data) => ({ items: (data.list as { vid: string }[]).map((v) => v.vid), next: nextOrEnd(data.next_id) }),
  );
  out.push(...(liked ? compareSets('account', openid, 'liked videos', ledger.likedBy(openid), liked) : [unreadable('account', openid, 'liked videos')]));

  for (const [op, want] of [
    ['get_follow', ledger.followees(openid)],
    ['get_follower', ledger.followers(openid)],
  ] as const) {
    let total: unknown;
    const users = await allPages(
      client,
      op,
      (offset) => hub(op, { openid, token, watch_list: openid, offset, d: '' }),
      (data) => {
        total = data.total;
        return { items: (data.list as { openid: string }[]).map((u) => u.openid), next: nextOrEnd(data.next_offset) };
      },
    );
    if (!users) out.push(unreadable('account', openid, op));
    else out.push(...compareFields('account', openid, { [`${op} total`]: want.size }, { [`${op} total`]: total }), ...compareSets('account', openid, `${op} list`, want, users));
  }
  return out;
}

/** The key list (ids and is_active, deleted keys absent) and a verify of every key the user ever made. */
async function checkKeys(client: SoakClient, ledger: Ledger, account: SoakAccount): Promise<Mismatch[]> {
  const { openid, token } = account;
  const keys = ledger.keys(openid);
  const out: Mismatch[] = [];
  const list = await client.send('key list', { method: 'GET', path: '/api/v1/api-keys', bearer: token });
  if (list.status !== 200) out.push(unreadable('key', openid, 'key list'));
  else {
    const seen = (list.body.data as { id: number; is_active: boolean }[]).map((k) => `${k.id} is_active=${k.is_active}`);
    out.push(...compareSets('key', openid, 'keys', keys.filter((k) => !k.deleted).map((k) => `${k.id} is_active=${k.active}`), seen));
  }
  for (const key of keys) {
    const expected = key.active ? 200 : 401;
    const answer = await client.send(key.active ? 'key verify' : 'key verify (revoked or deleted)', { method: 'GET', path: `/api/v1/api-keys/verify?key=${encodeURIComponent(key.apiKey)}` }, expected);
    if (answer.status !== expected) out.push({ entity: 'key', id: `${openid} key ${key.id}`, field: 'verify status', expected, seen: answer.status });
  }
  return out;
}

async function checkVideo(client: SoakClient, ledger: Ledger, reader: SoakAccount, vid: string): Promise<Mismatch[]> {
  const want = ledger.videoCounts(vid);
  const stored = await getVideo(vid, true);
  const out = compareFields('video', vid, want, stored as unknown as Record<string, unknown> | undefined);
  let total: unknown;
  const cids = await allPages(
    client,
    'comment_get',
    (page) => hub('comment_get', { openid: reader.openid, token: reader.token, vid, page, d: '' }),
    (data) => {
      total = data.total;
      return { items: (data.list as { cid: string }[]).map((c) => c.cid), next: data.has_more === true ? Number(data.page) + 1 : undefined };
    },
    1,
  );
  if (!cids) return [...out, unreadable('video', vid, 'comments')];
  return [...out, ...compareFields('video', vid, { 'comment_get total': want.comment_count }, { 'comment_get total': total }), ...compareSets('video', vid, 'comment ids', ledger.comments(vid), cids)];
}

export async function checkStore(client: SoakClient, ledger: Ledger, accounts: SoakAccount[]): Promise<CheckResult> {
  const mismatches: Mismatch[] = [];
  await inParallel(accounts, 6, async (account) => {
    mismatches.push(...(await checkAccount(client, ledger, account)), ...(await checkKeys(client, ledger, account)));
  });
  const vids = ledger.videos();
  await inParallel(vids, 6, async (vid) => {
    mismatches.push(...(await checkVideo(client, ledger, accounts[0]!, vid)));
  });
  const sum = (f: (openid: string) => number) => accounts.reduce((s, a) => s + f(a.openid), 0);
  return {
    mismatches,
    checked: {
      accounts: accounts.length,
      videos: vids.length,
      keys: sum((openid) => ledger.keys(openid).length),
      likes: sum((openid) => ledger.likedBy(openid).size),
      follows: sum((openid) => ledger.followees(openid).size),
      comments: vids.reduce((s, vid) => s + ledger.comments(vid).size, 0),
    },
  };
}

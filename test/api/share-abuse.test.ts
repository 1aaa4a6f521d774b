import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';

// Callers at chosen addresses: the front door as deployed (test/support/viewers.ts).

import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { shareItem, shareKeys, SHARE_LIFETIME_S } from '../../lib/features/share/shares.js';
import { clearFaults, failWhere, type FaultKind } from '../support/faults.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { changedItems, storeSnapshot } from '../support/store-digest.js';
import { tokenFor } from '../support/tokens.js';
import { useViewerAddresses, VIEWER_ENV } from '../support/viewers.js';

/**
 * Share ids and share counts against someone who repeats requests without a credential
 * (docs/hub-api.md, "sharetext" and "The share page"): a share id cannot be computed from what is
 * public, and probing ids finds, counts and extends nothing; `share_count` and `open_count` rise at
 * most once per network (an IPv4 address, an IPv6 /64) per video or share and UTC day for callers
 * without a credential, and the anonymous share limit counts an IPv6 caller by its /64.
 */
const from = useViewerAddresses();
const api = useTestStack({ http: false, env: VIEWER_ENV });

const DAY_MS = 86_400_000;
/** Noon of a UTC day no other test of this file uses (the clock is reset after each test). */
let daysAhead = 0;
const noonOfFreshDay = () => {
  daysAhead += 2;
  clock.set((Math.floor(Date.now() / DAY_MS) + daysAhead) * DAY_MS + DAY_MS / 2);
};

type Shared = { text: string; url: string; shareid: string };
const share = (ip: string, params: Record<string, string | undefined>) =>
  hub<Shared>(api, 'sharetext', { openid: 'u_whoever', d: '', locale: 'en', country: 'CN', ...params }, from(ip));
const open = (ip: string, shareid: string, userAgent = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)') =>
  api.get(`/s/${shareid}`, { headers: { ...from(ip), 'user-agent': userAgent } });
const counts = async (vid: string) => (await getHubItem<{ share_count?: number; open_count?: number }>(videoKeys.video(vid))) ?? {};
const shareOf = (shareid: string) => getHubItem<{ open_count?: number; preview_count?: number; ttl: number }>(shareKeys.share(shareid));
/** The id the old code derived from public data: 12 characters of sha256("<sharer>\n<vid>\n<UTC day>"). */
const derivedId = (sharer: string, vid: string, nowMs: number) =>
  createHash('sha256').update(`${sharer}\n${vid}\n${new Date(nowMs).toISOString().slice(0, 10)}`).digest('base64url').replace(/[-_]/g, '').slice(0, 12);

let accounts: TestAccount[] | undefined;
const twoAccounts = async () => (accounts ??= await putTestAccounts(2)) as [TestAccount, TestAccount];

describe('share ids', () => {
  it('are 20 random characters (119 bits), not derived from sharer, video and day; a repeat the same day answers the same id', async () => {
    noonOfFreshDay();
    const [alice, bob] = await twoAccounts();
    const video = await putTestVideo(bob.openid);
    const token = await tokenFor(alice.openid);
    const first = await share('198.51.100.7', { openid: alice.openid, token, vid: video.vid });
    expect(first.status).toBe(200);
    const id = first.data.shareid;
    expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(id).not.toBe(derivedId(`a:${alice.openid}`, video.vid, clock.now()));
    expect(first.data.url).toMatch(new RegExp(`/s/${id}$`));
    // The one-share-a-day rule holds by the (sharer, video, day) index: the same id, counted once,
    // from anywhere, with the token in the query or in the header.
    expect((await share('203.0.113.9', { openid: alice.openid, token, vid: video.vid })).data.shareid).toBe(id);
    const viaHeader = await hub<Shared>(api, 'sharetext', { openid: alice.openid, vid: video.vid, d: '', locale: 'zh-CN', country: '' }, { ...from('198.51.100.7'), authorization: `Bearer ${token}` });
    expect(viaHeader.data.shareid).toBe(id);
    // Anonymous shares get ids of their own, as random.
    const device = await share('198.51.100.7', { vid: video.vid, d: 'phone-1' });
    expect(device.data.shareid).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(device.data.shareid).not.toBe(derivedId('d:phone-1', video.vid, clock.now()));
    expect((await share('198.51.100.7', { vid: video.vid, d: 'phone-1' })).data.shareid).toBe(device.data.shareid);
    // The next UTC day: a new share, with a new id.
    clock.advance(DAY_MS);
    const tomorrow = await share('198.51.100.7', { openid: alice.openid, token: await tokenFor(alice.openid), vid: video.vid });
    expect(tomorrow.data.shareid).not.toBe(id);
    expect(tomorrow.data.shareid).toMatch(/^[A-Za-z0-9]{20}$/);
  });

  it('a probe of an unknown id, of either length, answers the 404 page and writes nothing', async () => {
    const [, bob] = await twoAccounts();
    const video = await putTestVideo(bob.openid);
    const real = (await share('198.51.100.20', { vid: video.vid, d: 'probe-target' })).data.shareid;
    const before = await storeSnapshot();
    for (const probe of ['AAAAAAAAAAAAAAAAAAAA', 'AAAAAAAAAAAA', `${real.slice(0, 19)}${real.endsWith('A') ? 'B' : 'A'}`]) {
      const page = await open('198.51.100.21', probe);
      expect(page.status, probe).toBe(404);
      expect(String(page.body)).toContain('This share was not found');
    }
    expect(changedItems(before, await storeSnapshot())).toEqual([]);
  });

  it('an old-format share (12 characters) keeps working until it expires', async () => {
    // Time stopped: the expiry expected is computed from "now", which a slow view could carry past a second (seen failing under load).
    clock.set(clock.now());
    const [, bob] = await twoAccounts();
    const video = await putTestVideo(bob.openid);
    const shareid = 'Old0format12';
    const now = clock.now();
    await db.send(
      new PutCommand({
        TableName: tableNames.hub,
        Item: shareItem({ shareid, vid: video.vid, author_openid: bob.openid, d: '', locale: 'en', country: '', created_at: new Date(now).toISOString(), ttl: Math.ceil(now / 1000) + 3600 }),
      }),
    );
    const page = await open('198.51.100.30', shareid);
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain(`?shareid=${shareid}`);
    expect(await shareOf(shareid)).toMatchObject({ open_count: 1, ttl: Math.ceil(clock.now() / 1000) + SHARE_LIFETIME_S });
    clock.advance(SHARE_LIFETIME_S * 1000 + 60_000);
    expect((await open('198.51.100.30', shareid)).status).toBe(404);
  });

  it('a share stored before expiry existed (no ttl) is counted on its next view, which gives it an expiry', async () => {
    // Time stopped: the expiry expected is computed from "now", which a slow view could carry past a second (seen failing under load).
    clock.set(clock.now());
    const [, bob] = await twoAccounts();
    const video = await putTestVideo(bob.openid);
    const shareid = 'Old0format13';
    const { ttl: _none, ...legacy } = shareItem({ shareid, vid: video.vid, author_openid: bob.openid, d: '', locale: 'en', country: '', created_at: clock.nowIso(), ttl: 0 });
    await db.send(new PutCommand({ TableName: tableNames.hub, Item: legacy }));
    expect((await open('198.51.100.31', shareid)).status).toBe(200);
    expect(await shareOf(shareid)).toMatchObject({ open_count: 1, ttl: Math.ceil(clock.now() / 1000) + SHARE_LIFETIME_S });
    expect(await counts(video.vid)).toMatchObject({ open_count: 1 });
  });
});

describe('share_count', () => {
  it('rises once per network, video and UTC day for anonymous shares, whatever device id they name; once per account and day for signed-in shares', async () => {
    noonOfFreshDay();
    const [alice, bob] = await twoAccounts();
    const video = await putTestVideo(bob.openid);
    // 50 anonymous shares from one address, each with a made-up device id: each device gets its
    // share (a link of its own), the video counts one.
    const fifty = await Promise.all(Array.from({ length: 50 }, (_, i) => share('198.51.100.40', { vid: video.vid, d: `made-up-${i}` })));
    expect(fifty.map((r) => r.status)).toEqual(fifty.map(() => 200));
    expect(new Set(fifty.map((r) => r.data.shareid)).size).toBe(50);
    expect(await counts(video.vid)).toMatchObject({ share_count: 1 });
    // Fresh addresses of one IPv6 /64, with and without device ids: one network, counted once.
    for (let i = 1; i <= 5; i++) expect((await share(`2001:db8:40:1::${i}`, { vid: video.vid, d: i % 2 ? `v6-${i}` : '' })).status).toBe(200);
    expect(await counts(video.vid)).toMatchObject({ share_count: 2 });
    // Another /64: another network.
    expect((await share('2001:db8:40:2::1', { vid: video.vid })).status).toBe(200);
    expect(await counts(video.vid)).toMatchObject({ share_count: 3 });
    // Signed-in shares count per account, whatever the network (here the first one's).
    for (const who of [alice, bob, alice]) expect((await share('198.51.100.40', { openid: who.openid, token: await tokenFor(who.openid), vid: video.vid })).status).toBe(200);
    expect(await counts(video.vid)).toMatchObject({ share_count: 5 });
    // The next UTC day counts again.
    clock.advance(DAY_MS);
    expect((await share('198.51.100.40', { vid: video.vid, d: 'made-up-0' })).status).toBe(200);
    expect(await counts(video.vid)).toMatchObject({ share_count: 6 });
  });
});

describe('open_count', () => {
  it('rises once per network, share and UTC day: 25 fetches from one address are one open; link previews likewise', async () => {
    noonOfFreshDay();
    const [, bob] = await twoAccounts();
    const video = await putTestVideo(bob.openid);
    const shareid = (await share('198.51.100.50', { vid: video.vid, d: 'sharer' })).data.shareid;
    const fetches = await Promise.all(Array.from({ length: 25 }, () => open('203.0.113.50', shareid)));
    expect(fetches.map((r) => r.status)).toEqual(fetches.map(() => 200));
    expect(await shareOf(shareid)).toMatchObject({ open_count: 1 });
    expect(await counts(video.vid)).toMatchObject({ open_count: 1 });
    // Addresses of one /64: one network.
    for (let i = 1; i <= 5; i++) expect((await open(`2001:db8:50:1::${i}`, shareid)).status).toBe(200);
    expect(await counts(video.vid)).toMatchObject({ open_count: 2 });
    // A link preview is counted apart (on the share only), once per network and day too.
    for (let i = 0; i < 5; i++) expect((await open('192.0.2.50', shareid, 'facebookexternalhit/1.1')).status).toBe(200);
    expect(await shareOf(shareid)).toMatchObject({ open_count: 2, preview_count: 1 });
    // The next UTC day, the first address's view is counted again, and moves the expiry.
    clock.advance(DAY_MS);
    expect((await open('203.0.113.50', shareid)).status).toBe(200);
    expect(await shareOf(shareid)).toMatchObject({ open_count: 3, ttl: Math.ceil(clock.now() / 1000) + SHARE_LIFETIME_S });
    expect(await counts(video.vid)).toMatchObject({ open_count: 3, share_count: 1 });
  });
});

describe('the anonymous share limit', () => {
  it('counts an IPv6 caller by its /64: 60 new shares an hour from one /64, whatever addresses it takes', async () => {
    noonOfFreshDay();
    const [, bob] = await twoAccounts();
    const video = await putTestVideo(bob.openid);
    for (let i = 1; i <= 60; i++) expect((await share(`2001:db8:60:1::${i.toString(16)}`, { vid: video.vid, d: `limit-${i}` })).status, `share ${i}`).toBe(200);
    const refused = await share('2001:db8:60:1:aaaa:bbbb:cccc:dddd', { vid: video.vid, d: 'limit-61' });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another /64 has its own allowance.
    expect((await share('2001:db8:60:2::1', { vid: video.vid, d: 'limit-61' })).status).toBe(200);
  });
});

describe('the share page under DynamoDB faults', () => {
  afterEach(() => clearFaults());
  const counting = (command: string) => command === 'TransactWriteItemsCommand';

  it.each<[string, FaultKind, boolean]>([
    ['throttled', 'throughput', false],
    ['cancelled', 'tx-throttled', false],
    ['timed out before it applied', 'timeout', false],
    ['timed out after it applied', 'timeout', true],
  ])('a count %s: the page is served, the count is all or nothing, and the next view counts it at most once', async (_label, kind, applied) => {
    noonOfFreshDay();
    const [, bob] = await twoAccounts();
    const video = await putTestVideo(bob.openid);
    const shareid = (await share('198.51.100.70', { vid: video.vid, d: `fault-${kind}-${applied}` })).data.shareid;
    const fault = failWhere(kind, counting, { times: 1, applied });
    const page = await open('203.0.113.70', shareid);
    expect(page.status).toBe(200);
    expect(fault.failures).toBe(1);
    const once = applied ? 1 : 0;
    expect((await shareOf(shareid))?.open_count ?? 0).toBe(once);
    expect((await counts(video.vid)).open_count ?? 0).toBe(once);
    // The next view from that network: counted now if the first was not, else not again.
    expect((await open('203.0.113.70', shareid)).status).toBe(200);
    expect(await shareOf(shareid)).toMatchObject({ open_count: 1 });
    expect(await counts(video.vid)).toMatchObject({ open_count: 1 });
  });

  it('a failed read of the share answers the HTML 503 with Retry-After and writes nothing', async () => {
    const [, bob] = await twoAccounts();
    const video = await putTestVideo(bob.openid);
    const shareid = (await share('198.51.100.71', { vid: video.vid, d: 'read-fault' })).data.shareid;
    const before = await storeSnapshot();
    failWhere('throughput', (command) => command === 'BatchGetItemCommand', { times: 1 });
    const page = await open('203.0.113.71', shareid);
    expect(page.status).toBe(503);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(changedItems(before, await storeSnapshot())).toEqual([]);
  });
});

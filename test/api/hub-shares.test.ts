import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { SHARE_LIFETIME_S, utcDay } from '../../lib/features/share/shares.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, startTestStack, type ApiResponse } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { DAY_MS, HOUR_MS, pinInsideWindow } from '../support/clock-windows.js';
import { shareKeys } from '../../lib/features/share/shares.js';
import { rateWindowKeys } from '../../lib/platform/limits/rate-windows.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';

/**
 * sharetext's attribution, counting and limits (docs/hub-api.md, sharetext): a share is an
 * account's only when made with that account's credential; one share per (sharer, video, UTC day);
 * share_count counts an account's, and anonymous ones once per network; new shares are limited per
 * caller network; a share carries its expiry. (Callers at other addresses: share-abuse.test.ts.)
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
/** Sends at once: parallel repeats really race. */
let burst: ReturnType<typeof apiClient>;
let alice: TestAccount;
let bob: TestAccount;
let aliceKey: string;

beforeAll(async () => {
  stack = await startTestStack({ http: false });
  api = apiClient(stack.url);
  burst = apiClient(stack.url, { settle: false });
  [alice, bob] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
  aliceKey = (await api.post<{ api_key: string }>('/api/v1/api-keys', { token: alice.token, body: { name: 'share script' } })).data.api_key;
});
afterAll(async () => stack?.stop());
afterEach(() => clock.reset());

type Shared = { text: string; url: string; shareid: string };
type Share = Record<string, unknown>;
const share = (params: Record<string, string | undefined>, headers?: Record<string, string>, client = api) =>
  hub<Shared>(client, 'sharetext', { openid: alice.openid, d: 'phone-1', locale: 'en', country: 'CN', ...params }, headers);
const shareCount = async (vid: string) => (await getHubItem<{ share_count?: number }>(videoKeys.video(vid)))?.share_count ?? 0;
/** Every request of this file comes from the same address: the window of the hour of `clock`. */
const ipWindow = () => getHubItem<{ n: number }>(rateWindowKeys.rateWindow('shares-ip', '127.0.0.1', `3600s#${Math.floor(clock.now() / 3_600_000)}`));

describe('sharetext attribution', () => {
  it('a share without a credential is attributed to nobody, whatever openid it names; with one it is that account’s', async () => {
    // A minute into the next UTC hour, the clock stopped: an empty window, which the requests cannot outlast.
    pinInsideWindow(HOUR_MS, 60_000);
    const video = await putTestVideo(bob.openid);
    const forged = await share({ vid: video.vid, openid: alice.openid });
    expect(forged.status).toBe(200);
    const stored = await getHubItem<Share>(shareKeys.share(forged.data.shareid));
    expect(stored).toMatchObject({ vid: video.vid, d: 'phone-1' });
    expect(stored).not.toHaveProperty('openid');
    expect(stored).not.toHaveProperty('gsi2pk');
    expect(JSON.stringify(stored)).not.toContain(alice.openid);

    // Alice's own token, in the query or as a Bearer header, or her access key: hers.
    const own = await share({ vid: video.vid, token: alice.token });
    expect(own.status).toBe(200);
    expect(own.data.shareid).not.toBe(forged.data.shareid);
    const ownStored = await getHubItem<Share & { created_at: string }>(shareKeys.share(own.data.shareid));
    // Listed under its sharer (the account's data export and erasure read that index).
    expect(ownStored).toMatchObject({ vid: video.vid, openid: alice.openid, ...shareKeys.sharerIndex(alice.openid, ownStored!.created_at, own.data.shareid) });
    expect((await share({ vid: video.vid }, { authorization: `Bearer ${alice.token}` })).data.shareid).toBe(own.data.shareid);
    expect((await share({ vid: video.vid }, { authorization: `Bearer ${aliceKey}` })).data.shareid).toBe(own.data.shareid);
    expect(await shareCount(video.vid)).toBe(2);
    // Nothing of the account's shows a share it did not make: its audit trail lists no share.
    const audit = await api.get<{ items: { type: string }[] }>('/api/v1/audit', { token: alice.token });
    expect(audit.data.items.filter((e) => e.type.includes('share'))).toEqual([]);
  });

  it.each<[string, { token?: string; header?: string }]>([
    ['the token of another account', { token: 'BOB' }],
    ['an invalid token', { token: 'not-a-jwt' }],
    ['another account’s Bearer JWT', { header: 'BOB' }],
    ['an unknown access key', { header: 'ak_doesnotexist0000000000000000000000000000' }],
  ])('%s is 401 and records nothing', async (_label, how) => {
    const video = await putTestVideo(bob.openid);
    const before = await ipWindow();
    const token = how.token === 'BOB' ? bob.token : how.token;
    const header = how.header === 'BOB' ? bob.token : how.header;
    const res = await share({ vid: video.vid, token }, header ? { authorization: `Bearer ${header}` } : undefined);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'AUTH_ERROR' });
    expect(await shareCount(video.vid)).toBe(0);
    expect(await getHubItem(shareKeys.daily({ kind: 'account', openid: alice.openid }, video.vid, utcDay(clock.now())))).toBeUndefined();
    expect(await getHubItem(shareKeys.daily({ kind: 'device', d: 'phone-1' }, video.vid, utcDay(clock.now())))).toBeUndefined();
    expect(await ipWindow()).toEqual(before);
  });
});

describe('share_count', () => {
  it('makes one share per sharer, video and UTC day across 50 repeats, sent at once; counts an account’s, and the network’s first anonymous one', async () => {
    // Mid-day, so that the 50 repeats share one UTC day.
    clock.set(Date.UTC(2031, 4, 6, 12, 0, 0));
    const video = await putTestVideo(bob.openid);
    // A login token of that time.
    const token = await tokenFor(alice.openid);
    const repeats = async (params: Record<string, string>) => {
      const answers = await Promise.all(Array.from({ length: 50 }, () => share({ vid: video.vid, ...params }, undefined, burst)));
      expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
      expect(new Set(answers.map((a) => a.data.shareid)).size).toBe(1);
      return answers[0]!.data.shareid;
    };
    const mine = await repeats({ token });
    expect(await shareCount(video.vid)).toBe(1);
    // Anonymous: per device, and per network when there is no device id; the video counts the
    // network's first anonymous share of the day only.
    const device = await repeats({ openid: bob.openid });
    expect(await shareCount(video.vid)).toBe(2);
    const address = await repeats({ d: '' });
    expect(new Set([mine, device, address]).size).toBe(3);
    expect(await shareCount(video.vid)).toBe(2);
    // Each new share counted once in the network's window.
    expect(await ipWindow()).toMatchObject({ n: 3 });

    // The next UTC day, another share of each.
    clock.set(Date.UTC(2031, 4, 7, 0, 0, 30));
    const tomorrow = await repeats({ token });
    expect(tomorrow).not.toBe(mine);
    expect(await shareCount(video.vid)).toBe(3);
  });
});

describe('the per-network limit of sharetext', () => {
  it('60 new shares per network per hour: the 61st is 429 with Retry-After and records nothing; repeats are still answered', async () => {
    // A minute past noon (UTC) of a day no other test uses: the next hour is of the same UTC day.
    pinInsideWindow(DAY_MS, 12 * HOUR_MS + 60_000, 2);
    const video = await putTestVideo(bob.openid);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => share({ vid: video.vid, d: `device-${i}` }, undefined, burst)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    // 60 shares (a link each), counted once on the video: one network's anonymous shares of the day.
    expect(new Set(answers.map((a) => a.data.shareid)).size).toBe(60);
    expect(await shareCount(video.vid)).toBe(1);

    for (const params of [{ d: 'device-60' }, { token: alice.token }]) {
      const refused = await share({ vid: video.vid, ...params });
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ code: 'RATE_LIMITED', error: expect.stringContaining('60') });
      const wait = Number(refused.headers.get('retry-after'));
      expect(wait).toBeGreaterThanOrEqual(1);
      expect(wait).toBeLessThanOrEqual(3600);
    }
    expect(await getHubItem(shareKeys.daily({ kind: 'device', d: 'device-60' }, video.vid, utcDay(clock.now())))).toBeUndefined();
    expect(await getHubItem(shareKeys.daily({ kind: 'account', openid: alice.openid }, video.vid, utcDay(clock.now())))).toBeUndefined();
    expect(await shareCount(video.vid)).toBe(1);
    expect(await ipWindow()).toMatchObject({ n: 60 });

    // A repeat of a share made this day writes nothing: answered past the limit.
    const repeat = await share({ vid: video.vid, d: 'device-7' });
    expect(repeat.status).toBe(200);
    expect(repeat.data.shareid).toBe(answers[7]!.data.shareid);

    // The next hour: new shares again (the same UTC day: not counted again).
    clock.advance(HOUR_MS);
    expect((await share({ vid: video.vid, d: 'device-60' })).status).toBe(200);
    expect(await shareCount(video.vid)).toBe(1);
    expect((await share({ vid: video.vid, token: alice.token })).status).toBe(200);
    expect(await shareCount(video.vid)).toBe(2);
  });
});

describe('a share’s expiry', () => {
  it('is stored as its TTL: 30 days after it was made', async () => {
    const video = await putTestVideo(bob.openid);
    const res: ApiResponse<Shared> = await share({ vid: video.vid, d: 'expiry-device' });
    expect(res.status).toBe(200);
    const stored = await getHubItem<{ ttl: number; created_at: string }>(shareKeys.share(res.data.shareid));
    expect(stored!.ttl).toBe(Math.ceil(Date.parse(stored!.created_at) / 1000) + SHARE_LIFETIME_S);
    expect(SHARE_LIFETIME_S).toBe(30 * 86_400);
  });
});

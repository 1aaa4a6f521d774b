import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { SHARE_PAGE_CSP } from '../../lib/features/share/share-html.js';
import { SHARE_LIFETIME_S } from '../../lib/features/share/shares.js';
import { recordRequests } from '../support/db-requests.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { shareKeys } from '../../lib/features/share/shares.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';

/**
 * The share page end to end (docs/hub-api.md, "The share page"): the URL sharetext hands out,
 * opened on the local server (the same route and handler as deployed): status, preview tags,
 * language, escaping, the 404 page, the opens counted.
 */
const env = {
  APP_LINK_SCHEME: 'expohubtest',
  APP_STORE_URL: 'https://apps.example.com/expohub',
  APPLE_APP_IDS: 'ABCDE12345.com.example.expohub',
  ANDROID_APP_PACKAGE: 'com.example.expohub',
  ANDROID_CERT_SHA256: '14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5',
};
let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let author: TestAccount;
let sharer: TestAccount;

beforeAll(async () => {
  stack = await startTestStack({ env });
  api = apiClient(stack.url);
  [author, sharer] = (await putTestAccounts(2)) as [TestAccount, TestAccount];
});
afterAll(async () => stack?.stop());

async function shareOf(vid: string, locale: string): Promise<string> {
  const res = await hub<{ shareid: string; url: string }>(api, 'sharetext', { openid: sharer.openid, vid, d: `dev-${vid}-${locale}`, locale, country: 'CN' });
  expect(res.status).toBe(200);
  return res.data.shareid;
}

async function open(shareid: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${stack.url}/s/${shareid}`, { headers });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

const meta = (html: string, name: string) => new RegExp(`<meta (?:property|name)="${name}" content="([^"]*)">`).exec(html)?.[1];

describe('GET /s/{shareid}', () => {
  it('serves the video page with its preview tags, the player, the deep link and a strict policy', async () => {
    const video = await putTestVideo(author.openid, { title: 'Shanghai Auto Show 2026', description: 'Hall 3 walk-through', like_count: 7, duration_s: 95 });
    const shareid = await shareOf(video.vid, 'en-US');
    const page = await open(shareid);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(SHARE_PAGE_CSP);
    expect(page.headers.get('cache-control')).toMatch(/max-age=60/);
    expect(page.html).toContain('<html lang="en">');
    expect(meta(page.html, 'og:title')).toBe('Shanghai Auto Show 2026');
    expect(meta(page.html, 'og:description')).toBe('Hall 3 walk-through');
    expect(meta(page.html, 'og:image')).toBe(video.cover_url);
    expect(meta(page.html, 'og:video')).toBe(video.video_url);
    expect(meta(page.html, 'og:url')).toMatch(new RegExp(`/s/${shareid}$`));
    expect(meta(page.html, 'twitter:card')).toBe('summary_large_image');
    expect(page.html).toContain(`poster="${video.cover_url}"`);
    expect(page.html).toContain(`href="expohubtest://video/${video.vid}?shareid=${shareid}"`);
    expect(page.html).toContain('href="https://apps.example.com/expohub"');
    expect(page.html).toContain('7 likes');
    expect(page.html).toContain('1:35');
    expect(page.html).toContain(author.nickname);
    expect(page.html).not.toMatch(/<script/i);
  });

  it('answers in the share locale, and from Accept-Language only when the share has none', async () => {
    const video = await putTestVideo(author.openid, { title: '上海车展' });
    const zh = await open(await shareOf(video.vid, 'zh-CN'), { 'accept-language': 'en' });
    expect(zh.html).toContain('<html lang="zh-CN">');
    expect(zh.html).toContain('在 expohub 应用中打开');
    const en = await open(await shareOf(video.vid, 'en'), { 'accept-language': 'zh-CN' });
    expect(en.html).toContain('<html lang="en">');
    // An unknown share has no locale: the 404 page follows Accept-Language.
    const unknownZh = await open('AAAAAAAAAAAA', { 'accept-language': 'zh-CN,zh;q=0.9' });
    expect(unknownZh.status).toBe(404);
    expect(unknownZh.html).toContain('找不到这个分享');
    expect(unknownZh.headers.get('vary')).toBe('Accept-Language');
  });

  it('escapes a title like <script>alert(1)</script> and quotes inside attributes', async () => {
    const video = await putTestVideo(author.openid, { title: '<script>alert(1)</script> "quoted" & more', description: `a "b" <i>c</i>` });
    const page = await open(await shareOf(video.vid, 'en'));
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('<script>');
    expect(page.html).not.toContain('<i>c</i>');
    expect(page.html).toContain('<h1>&lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot; &amp; more</h1>');
    expect(meta(page.html, 'og:title')).toBe('&lt;script&gt;alert(1)&lt;/script&gt; &quot;quoted&quot; &amp; more');
    expect(meta(page.html, 'og:description')).toBe('a &quot;b&quot; &lt;i&gt;c&lt;/i&gt;');
  });

  it('answers a friendly 404 page, not JSON, for an unknown share, a malformed id and a removed video', async () => {
    for (const id of ['AAAAAAAAAAAA', 'not-a-share', '%3Cscript%3E']) {
      const page = await open(id);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.html).toContain('This share was not found');
      expect(page.html).not.toContain('<script');
    }
    const video = await putTestVideo(author.openid);
    const shareid = await shareOf(video.vid, 'en');
    await db.send(new DeleteCommand({ TableName: tableNames.hub, Key: videoKeys.video(video.vid) }));
    const gone = await open(shareid);
    expect(gone.status).toBe(404);
    expect(gone.html).toContain('This share was not found');
  });

  it('counts a view as an open on the share and the video once per network and UTC day, link previews apart, within 2 reads and 1 write', async () => {
    const video = await putTestVideo(author.openid);
    const shareid = await shareOf(video.vid, 'en');
    const { result, requests } = await recordRequests(() => open(shareid, { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X)' }));
    expect(result.status).toBe(200);
    // The share with this network's day window; the video with its author; the open's transaction.
    expect(requests.map((r) => r.command).sort()).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand', 'TransactWriteItemsCommand']);
    // Every request here comes from 127.0.0.1: the same network, counted once today.
    const again = await recordRequests(() => open(shareid));
    expect(again.requests.map((r) => r.command)).toEqual(['BatchGetItemCommand', 'BatchGetItemCommand']);
    await open(shareid, { 'user-agent': 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)' });
    await open(shareid, { 'user-agent': 'TelegramBot (like TwitterBot)' });
    expect(await getHubItem(shareKeys.share(shareid))).toMatchObject({ open_count: 1, preview_count: 1 });
    expect(await getHubItem(videoKeys.video(video.vid))).toMatchObject({ open_count: 1, share_count: 1 });
  });
});

describe('an expiring share', () => {
  afterEach(() => clock.reset());
  const ttlOf = async (shareid: string) => (await getHubItem<{ ttl: number }>(shareKeys.share(shareid)))!.ttl;
  const day = 86_400_000;

  it('answers the 404 page once 30 days passed without an open; an open by a person keeps it 30 more days, a link preview does not', async () => {
    const video = await putTestVideo(author.openid);
    const unopened = await shareOf(video.vid, 'en');
    const opened = await shareOf(video.vid, 'zh-CN');
    const made = await ttlOf(opened);
    expect(made - Math.floor(clock.now() / 1000)).toBeGreaterThanOrEqual(SHARE_LIFETIME_S - 60);

    // Time stops 20 days on (set, not advance): the extended TTL is computed from the same instant
    // as the expectation, however long the open takes on a loaded machine.
    clock.set(clock.now() + 20 * day);
    expect((await open(opened, { 'user-agent': 'facebookexternalhit/1.1' })).status).toBe(200);
    expect(await ttlOf(opened)).toBe(made);
    expect((await open(opened)).status).toBe(200);
    const extended = await ttlOf(opened);
    expect(extended).toBe(Math.ceil(clock.now() / 1000) + SHARE_LIFETIME_S);

    clock.advance(10 * day + 60_000);
    // Made 30 days and a minute ago, never opened: gone, though DynamoDB may not have removed it yet.
    expect(await getHubItem(shareKeys.share(unopened))).toBeDefined();
    const gone = await open(unopened);
    expect(gone.status).toBe(404);
    expect(gone.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(gone.html).toContain('This share was not found');
    // Opened 10 days ago: still there, until 30 days after that open.
    expect((await open(opened)).status).toBe(200);
    clock.advance(30 * day + 60_000);
    expect((await open(opened)).status).toBe(404);
    // An expired share is not revived by a view.
    expect(await ttlOf(opened)).toBeLessThan(Math.floor(clock.now() / 1000));
  });
});

describe('/.well-known app association files', () => {
  it('serves the iOS and Android files for the share paths, as configured', async () => {
    const apple = await fetch(`${stack.url}/.well-known/apple-app-site-association`);
    expect(apple.status).toBe(200);
    expect(apple.headers.get('content-type')).toBe('application/json');
    const aasa = (await apple.json()) as { applinks: { details: { appIDs?: string[]; appID?: string; components?: unknown[]; paths?: string[] }[] } };
    expect(aasa.applinks.details[0]).toMatchObject({ appIDs: [env.APPLE_APP_IDS], components: [{ '/': '/s/*' }] });
    expect(aasa.applinks.details[1]).toEqual({ appID: env.APPLE_APP_IDS, paths: ['/s/*'] });
    const android = await fetch(`${stack.url}/.well-known/assetlinks.json`);
    expect(android.status).toBe(200);
    expect(await android.json()).toEqual([
      { relation: ['delegate_permission/common.handle_all_urls'], target: { namespace: 'android_app', package_name: env.ANDROID_APP_PACKAGE, sha256_cert_fingerprints: [env.ANDROID_CERT_SHA256] } },
    ]);
  });

  it('answers 404 for a file that is not configured', async () => {
    const { appleAppSiteAssociation, assetLinks } = await import('../../lib/features/share/app-links.js');
    expect(appleAppSiteAssociation([])).toBeUndefined();
    expect(assetLinks('', ['AA'])).toBeUndefined();
    expect(assetLinks('com.example.expohub', [])).toBeUndefined();
    expect((await fetch(`${stack.url}/.well-known/other.json`)).status).toBe(404);
  });
});

describe('the share page in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
  });
  afterAll(async () => browser?.close());

  it('renders at 375 px without horizontal scroll, the player with its cover, the deep link, no console error', async () => {
    // A cover the page can load with the network off (the policy allows data: images).
    const cover = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const video = await putTestVideo(author.openid, { title: 'A very long exhibition title '.repeat(6).trim(), description: 'x'.repeat(400), cover_url: cover });
    const shareid = await shareOf(video.vid, 'zh-CN');
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, locale: 'zh-CN', javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      const response = await page.goto(`${stack.url}/s/${shareid}`);
      expect(response?.status()).toBe(200);
      await page.locator('h1').waitFor();
      const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      expect(widths.scroll).toBeLessThanOrEqual(widths.client);
      const player = page.locator('video');
      expect(await player.getAttribute('poster')).toBe(cover);
      expect(await player.getAttribute('src')).toBe(video.video_url);
      const box = await player.boundingBox();
      expect(box!.width).toBeGreaterThan(300);
      expect(box!.width).toBeLessThanOrEqual(375);
      const open = page.getByRole('link', { name: '在 expohub 应用中打开' });
      expect(await open.getAttribute('href')).toBe(`expohubtest://video/${video.vid}?shareid=${shareid}`);
      // The page's own style applied under its policy (a blocked style would leave the link unstyled).
      expect(await open.evaluate((a) => getComputedStyle(a).backgroundColor)).toBe('rgb(31, 94, 255)');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe('generated share ids', () => {
  // (A path whose percent-encoding does not decode, such as %ZZ, is refused by the gateway with its
  // 400 before any function runs: transport.test.ts.)
  it('answer the HTML 404 page, never an error, and never echo the id unescaped', async () => {
    const id = fc.oneof(
      // Dot segments are resolved by the URL itself (`/s/..` is `/`), so they are no share id.
      fc.string({ minLength: 1, maxLength: 40 }).map(encodeURIComponent).filter((v) => v !== '.' && v !== '..'),
      fc.constantFrom('%00', '%2F', '%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'A'.repeat(12), 'a"b', '%F0%9F%98%80', 'x'.repeat(300)),
    );
    await fc.assert(
      fc.asyncProperty(id, async (value) => {
        const page = await open(value);
        expect(page.status).toBe(404);
        expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(page.html).toContain('This share was not found');
        expect(page.html).not.toMatch(/<script/i);
      }),
      { numRuns: 40 },
    );
  });
});

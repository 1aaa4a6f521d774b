import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';

// A small key quota lets a test reach the server's real 409 with a few keys.
const MAX_KEYS = 4;

import { endSessionItem } from '../../lib/entities/accounts/sessions.js';
import { transactWrite } from '../../lib/platform/db/transact.js';
import { clock } from '../../lib/platform/clock.js';
import { decodeVerifiedToken } from '../../lib/features/auth/jwt.js';
import { tokenFor } from '../support/tokens.js';
import { DAY_MS, HOUR_MS, pinInsideWindow } from '../support/clock-windows.js';
import { useWebStack } from '../support/web-browser.js';
import { STORAGE_KEYS } from '../../web/src/session.js';
import { storeLoginAndReload } from '../support/web-session.js';

/**
 * The key-management page in Debian's Chromium, against the real local server (same routes,
 * authorizer and handlers as `npm start`) and this file's own DynamoDB Local and tables.
 */
interface KeyRecord {
  id: number;
  name: string;
  user_id: string;
  scopes: string[];
  expires_at: string | null;
  is_active: boolean;
  status: string;
}

const ARTIFACTS = resolve(import.meta.dirname, '../../test-artifacts');
const STORAGE = [STORAGE_KEYS.token, STORAGE_KEYS.username, STORAGE_KEYS.displayName];

const web = useWebStack({ env: { MAX_KEYS_PER_USER: String(MAX_KEYS) } });
let api: ReturnType<typeof web.api>;
beforeAll(async () => {
  api = web.api();
  await mkdir(ARTIFACTS, { recursive: true });
});

function openPage(options: { width?: number; height?: number; timezoneId?: string } = {}): Promise<Page> {
  return web.openPage({ viewport: { width: options.width ?? 1200, height: options.height ?? 900 }, timezoneId: options.timezoneId ?? 'Asia/Shanghai' });
}

/** Opens the page already signed in as `userId`, as if create_phone_account had answered. */
async function openSignedIn(userId: string, options: Parameters<typeof openPage>[0] = {}): Promise<{ page: Page; token: string }> {
  const token = await tokenFor(userId);
  const page = await openPage(options);
  await storeLoginAndReload(page, userId, token);
  await page.getByRole('heading', { level: 1, name: 'Access keys' }).waitFor();
  return { page, token };
}

const storedLogin = (page: Page) => page.evaluate((keys) => keys.map((k) => localStorage.getItem(k)), STORAGE);
const row = (page: Page, id: number) => page.locator(`tr[data-key-id="${id}"]`);
const listKeys = async (token: string) => (await api.get<KeyRecord[]>('/api/v1/api-keys', { token })).data;

async function createThroughForm(page: Page, fields: { name: string; scopes?: string; expiry?: string }): Promise<void> {
  await page.getByLabel('Name', { exact: true }).fill(fields.name);
  await page.getByLabel('Custom scopes').fill(fields.scopes ?? '');
  if (fields.expiry !== undefined) await page.getByLabel('Expires (optional)').fill(fields.expiry);
  await page.getByRole('button', { name: 'Create key' }).click();
}

describe('sign-in', () => {
  it('signs in with the code from /_dev/sms, keeps only token and username, and a wrong code stays on the login view', async () => {
    const phone = '+8613912345678';
    const page = await openPage();
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'login.png'), fullPage: true });

    await page.getByLabel('Phone number').fill(phone);
    await page.getByLabel('Phone number').press('Enter');
    await page.getByLabel('Verification code').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'login-code.png'), fullPage: true });
    const sms = await api.get<{ messages: { code: string }[] }>(`/_dev/sms?phone=${encodeURIComponent(phone)}`);
    expect(sms.status).toBe(200);
    const code = sms.data.messages[0]!.code;
    expect(code).toMatch(/^\d{6}$/);

    // A wrong code is a 401 from create_phone_account: reported, and the code step stays.
    const wrong = code === '000000' ? '111111' : '000000';
    await page.getByLabel('Verification code').fill(wrong);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Error:' }).textContent()).resolves.toMatch(/code/i);
    expect(await page.getByLabel('Verification code').isVisible()).toBe(true);
    expect(await storedLogin(page)).toEqual([null, null, null]);

    await page.getByLabel('Verification code').fill(code);
    await page.getByLabel('Verification code').press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Access keys' }).waitFor();
    await page.getByText('No keys yet').waitFor();

    const [token, username, displayName] = await storedLogin(page);
    expect(token).toBeTruthy();
    expect(username).toBeTruthy();
    expect(username).not.toContain('13912345678'); // openid is opaque, not the phone
    expect(displayName).toBe('+86139****5678');
    expect(await page.locator('#account').textContent()).toContain('+86139****5678');
    const claims = await decodeVerifiedToken(token!);
    expect(claims.sub).toBe(username);
    expect((await api.get('/api/v1/api-keys', { token: token! })).status).toBe(200);
  });

  it("shows the server's 429 for a second code within a minute, with its Retry-After in words", async () => {
    const phone = '+8613912340000';
    expect((await api.get(`/api/v1?do=gen_code&phonenumber=${encodeURIComponent(phone)}&nonce=first-request-1`)).status).toBe(200);
    const page = await openPage();
    const answers: { status: number; retryAfter: string | null }[] = [];
    page.on('response', (r) => {
      if (new URL(r.url()).searchParams.get('do') === 'gen_code') answers.push({ status: r.status(), retryAfter: r.headers()['retry-after'] ?? null });
    });
    await page.goto('/');
    await page.getByLabel('Phone number').fill(phone);
    await page.getByRole('button', { name: 'Send code' }).click();
    await expect.poll(() => answers.length).toBe(1);
    const [{ status, retryAfter }] = answers as [{ status: number; retryAfter: string }];
    expect(status).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toBe(`Error: A code was sent to this phone number less than 60 seconds ago. Try again in ${retryAfter} second${retryAfter === '1' ? '' : 's'}.×`);
    // Still on the phone step, ready to try again.
    expect(await page.getByLabel('Phone number').inputValue()).toBe(phone);
    expect(await page.getByRole('button', { name: 'Send code' }).isEnabled()).toBe(true);
    expect(await page.getByLabel('Verification code').count()).toBe(0);
  });

  it('an empty phone number is refused before any request', async () => {
    const page = await openPage();
    const hubCalls: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/v1') hubCalls.push(r.url());
    });
    await page.goto('/');
    await page.getByRole('button', { name: 'Send code' }).click();
    expect(await page.locator('#phone-error').textContent()).toContain('Enter your phone number');
    expect(await page.getByLabel('Phone number').getAttribute('aria-invalid')).toBe('true');
    expect(hubCalls).toEqual([]);
  });
});

describe('keys view', () => {
  it('creates a key, shows the plaintext once, verifies, revokes and deletes it', async () => {
    const { page, token } = await openSignedIn('web-alice');
    await page.getByText('No keys yet').waitFor();

    await createThroughForm(page, { name: '  nightly export ', scopes: 'a, b，c, ,' });
    const box = page.locator('.new-key');
    await box.waitFor();
    const plaintext = (await page.locator('#new-key-value').textContent()) ?? '';
    expect(plaintext).toMatch(/^ak_[A-Za-z0-9]{32}$/);
    expect(await box.textContent()).toContain('You will not see this key again');
    // Focus lands on the result box, so keyboard users reach the key and its Copy button next.
    expect(await page.evaluate(() => document.activeElement?.classList.contains('new-key'))).toBe(true);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: web.url() });
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(plaintext);
    expect(await page.getByRole('status').textContent()).toContain('copied');

    const [stored] = await listKeys(token);
    expect(stored).toMatchObject({ name: 'nightly export', user_id: 'web-alice', scopes: ['a', 'b', 'c'], expires_at: null, is_active: true });
    const id = stored!.id;
    await row(page, id).waitFor();
    expect(await row(page, id).locator('[data-col=scopes] li').allTextContents()).toEqual(['a', 'b', 'c']);
    expect(await row(page, id).locator('[data-col=status]').textContent()).toContain('Valid');
    expect(await row(page, id).locator('[data-col=expires]').textContent()).toBe('never');
    expect(await row(page, id).locator('[data-col=last-used]').textContent()).toBe('never');
    await page.screenshot({ path: join(ARTIFACTS, 'create-result.png'), fullPage: true });

    // The plaintext is nowhere but in that box, and a reload makes it gone for good.
    const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href);
    expect(storage).not.toContain(plaintext);
    await page.reload();
    await row(page, id).waitFor();
    expect(await page.locator('.new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(plaintext);

    // Verify: the key goes URL-encoded in the query; owner and scopes are shown.
    const verifyUrls: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/v1/api-keys/verify')) verifyUrls.push(r.url());
    });
    await page.getByLabel('Access key', { exact: true }).fill(`  ${plaintext}`);
    await page.getByRole('button', { name: 'Check key' }).click();
    await page.locator('[data-field=owner]').waitFor();
    expect(await page.locator('[data-field=owner]').textContent()).toBe('web-alice');
    expect(await page.locator('[data-field=scopes] li').allTextContents()).toEqual(['a', 'b', 'c']);
    expect(verifyUrls).toEqual([`${web.url()}/api/v1/api-keys/verify?key=${encodeURIComponent(plaintext)}`]);
    await expect.poll(() => row(page, id).locator('[data-col=last-used] time').count()).toBe(1);

    // A key that does not verify shows the server's message and keeps the person signed in.
    await page.getByLabel('Access key', { exact: true }).fill('ak_not+a/real key');
    await page.getByRole('button', { name: 'Check key' }).click();
    await page.locator('.verify-bad').waitFor();
    expect(await page.locator('.verify-bad').textContent()).toContain('Invalid, revoked or expired API key');
    expect(verifyUrls[1]).toBe(`${web.url()}/api/v1/api-keys/verify?key=${encodeURIComponent('ak_not+a/real key')}`);
    expect((await storedLogin(page))[0]).toBe(token);
    await page.screenshot({ path: join(ARTIFACTS, 'keys.png'), fullPage: true });

    // Revoke asks first; cancelling changes nothing.
    await row(page, id).getByRole('button', { name: 'Revoke key nightly export' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await dialog.waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'confirm-revoke.png') });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await dialog.count()).toBe(0);
    expect((await listKeys(token))[0]!.is_active).toBe(true);

    await row(page, id).getByRole('button', { name: 'Revoke key nightly export' }).click();
    await page.getByRole('dialog', { name: 'Revoke this key?' }).getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => row(page, id).getAttribute('data-status')).toBe('revoked');
    expect(await row(page, id).locator('[data-col=status]').textContent()).toContain('Revoked');
    expect(await row(page, id).getByRole('button', { name: /Revoke/ }).count()).toBe(0);
    expect(await row(page, id).getByRole('button', { name: 'Delete key nightly export' }).count()).toBe(1);
    expect((await listKeys(token))[0]).toMatchObject({ id, is_active: false, status: 'revoked' });
    expect((await api.get(`/api/v1/api-keys/verify?key=${plaintext}`)).status).toBe(401);

    await row(page, id).getByRole('button', { name: 'Delete key nightly export' }).click();
    await page.getByRole('dialog', { name: 'Delete this key?' }).getByRole('button', { name: 'Delete key' }).click();
    await page.getByText('No keys yet').waitFor();
    expect(await row(page, id).count()).toBe(0);
    expect(await listKeys(token)).toEqual([]);
    expect(await page.getByRole('status').textContent()).toContain('deleted');
  });

  it('sends the expiry as ISO 8601 from the local wall-clock time and shows "all" for empty scopes', async () => {
    const { page, token } = await openSignedIn('web-erin', { timezoneId: 'Asia/Shanghai' });
    await createThroughForm(page, { name: 'until 2031', expiry: '2031-05-06T07:08' });
    await page.locator('.new-key').waitFor();
    const [stored] = await listKeys(token);
    expect(stored).toMatchObject({ name: 'until 2031', scopes: [], expires_at: '2031-05-05T23:08:00.000Z' });
    await row(page, stored!.id).waitFor();
    expect(await row(page, stored!.id).locator('[data-col=scopes]').textContent()).toBe('all');
    expect(await row(page, stored!.id).locator('[data-col=expires] time').getAttribute('datetime')).toBe('2031-05-05T23:08:00.000Z');
    expect(await row(page, stored!.id).locator('[data-col=expires]').textContent()).toContain('2031');
  });

  it('refuses an empty or whitespace name without sending any request', async () => {
    const { page, token } = await openSignedIn('web-bob');
    await page.getByText('No keys yet').waitFor();
    const keyCalls: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/v1/api-keys')) keyCalls.push(`${r.method()} ${r.url()}`);
    });
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByLabel('Name', { exact: true }).fill('   ');
    await page.getByLabel('Custom scopes').fill('a, b');
    await page.getByLabel('Name', { exact: true }).press('Enter');
    expect(await page.locator('#key-name-error').textContent()).toContain('Enter a name for the key');
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('status').textContent()).toContain('Enter a name for the key');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key-name');
    expect(keyCalls).toEqual([]);
    expect(await listKeys(token)).toEqual([]);
  });

  it("shows the server's refusal of a create past the key quota (409 LIMIT_EXCEEDED) in words", async () => {
    // Key creation has no rate limit (no 429 there); the per-user quota is its real refusal.
    const token = await tokenFor('web-frank');
    for (let i = 1; i <= MAX_KEYS; i++) expect((await api.post('/api/v1/api-keys', { token, body: { name: `key ${i}` } })).status).toBe(201);
    const { page } = await openSignedIn('web-frank');
    await page.locator('tr[data-key-id]').nth(MAX_KEYS - 1).waitFor();
    await createThroughForm(page, { name: 'one too many' });
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`Error: You already have ${MAX_KEYS} API keys; delete one before creating another×`);
    expect(await page.locator('.new-key').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create key' }).isEnabled()).toBe(true);
    expect((await listKeys(token)).map((k) => k.name)).not.toContain('one too many');
    expect(await listKeys(token)).toHaveLength(MAX_KEYS);
  });

  it('gives up on a request after 30 seconds with a clear message', async () => {
    const page = await openPage();
    await page.clock.install();
    const token = await tokenFor('web-gina');
    await page.goto('/');
    await page.evaluate((t) => {
      localStorage.setItem('expohub.token', t);
      localStorage.setItem('expohub.username', 'web-gina');
    }, token);
    await page.reload();
    await page.getByText('No keys yet').waitFor();
    let hanging = 0;
    await page.route('**/api/v1/api-keys', (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      hanging += 1; // never answered
    });
    await createThroughForm(page, { name: 'slow' });
    await expect.poll(() => hanging).toBe(1);
    await page.clock.runFor(29_000);
    expect(await page.getByRole('button', { name: 'Creating…' }).isDisabled()).toBe(true);
    await page.clock.runFor(1_500);
    await expect.poll(() => page.getByRole('status').textContent()).toContain('did not answer within 30 seconds');
    expect(await page.getByRole('button', { name: 'Create key' }).isEnabled()).toBe(true);
    await page.unrouteAll({ behavior: 'ignoreErrors' });
  });
});

describe('scopes, hint, limit and usage', () => {
  it('creates a key with exactly the ticked scopes plus a custom one and its limit; the list shows hint and limit; the chart the right figures', async () => {
    const { page, token } = await openSignedIn('web-scopes');
    expect(await page.locator('#scopes-meaning').textContent()).toContain('ENFORCE_KEY_SCOPES');
    expect(await page.locator('.scope-boxes input[type=checkbox]').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value))).toEqual([
      'videos:write',
      'export:read',
      'hub:read',
      'hub:write',
    ]);
    // A limit out of range is refused in the page, before anything is sent.
    await page.getByLabel('Name', { exact: true }).fill('checked');
    await page.getByLabel('Requests per minute (optional)').fill('0');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.locator('#key-limit-error').textContent()).toContain('1 to 100,000');
    expect(await listKeys(token)).toEqual([]);

    await page.getByRole('checkbox', { name: 'videos:write' }).check();
    await page.getByRole('checkbox', { name: 'hub:read' }).check();
    await page.getByLabel('Custom scopes').fill('team:ci, hub:read');
    await page.getByLabel('Requests per minute (optional)').fill('25');
    await page.getByRole('button', { name: 'Create key' }).click();
    const plaintext = (await page.locator('#new-key-value').textContent())!;
    const [stored] = await listKeys(token);
    expect(stored).toMatchObject({ name: 'checked', scopes: ['videos:write', 'hub:read', 'team:ci'] });
    expect((stored as unknown as { rate_limit_per_minute: number }).rate_limit_per_minute).toBe(25);
    // The form is reset: no box stays ticked for the next key.
    expect(await page.getByRole('checkbox', { name: 'videos:write' }).isChecked()).toBe(false);
    const id = stored!.id;
    await row(page, id).waitFor();
    expect(await row(page, id).locator('.key-hint').textContent()).toBe(`ak_…${plaintext.slice(-4)}`);
    expect(await row(page, id).locator('[data-col=limit]').textContent()).toBe('25/min');
    expect(await page.locator('section[aria-labelledby=keys-heading] .list-slot').innerHTML()).not.toContain(plaintext.slice(3, 28));

    // Two requests two days ago, three "today" (the server runs in this process: its clock moves),
    // today being a UTC day ahead stopped at noon, so that the chart read later is of the same day.
    const now = pinInsideWindow(DAY_MS, 12 * HOUR_MS);
    onTestFinished(() => clock.reset());
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    clock.set(now - 2 * 86_400_000);
    for (let i = 0; i < 2; i++) expect((await api.get('/api/v1/me', { token: plaintext })).status).toBe(200);
    clock.set(now);
    for (let i = 0; i < 3; i++) expect((await api.get('/api/v1/me', { token: plaintext })).status).toBe(200);

    const toggle = row(page, id).locator('button.usage-toggle');
    await row(page, id).getByRole('button', { name: 'Show usage of key checked' }).click();
    const chart = row(page, id).locator('figure.usage');
    await chart.waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await chart.locator('svg rect').count()).toBe(30);
    expect(await chart.locator('svg').getAttribute('aria-hidden')).toBe('true');
    expect(await chart.locator(`rect[data-date="${day(now)}"]`).getAttribute('data-requests')).toBe('3');
    expect(await chart.locator(`rect[data-date="${day(now)}"]`).getAttribute('height')).toBe('40');
    expect(await chart.locator(`rect[data-date="${day(now - 2 * 86_400_000)}"]`).getAttribute('height')).toBe('27');
    expect(await chart.locator(`rect[data-date="${day(now - 86_400_000)}"]`).getAttribute('height')).toBe('0');
    expect(await chart.locator('svg rect').last().getAttribute('data-date')).toBe(day(now));
    expect(await chart.locator('figcaption').textContent()).toBe(`5 requests in the last 30 days; busiest day ${day(now)} with 3.`);
    // The text alternative: every day's figure, oldest first.
    await chart.getByText('Figures per day').click();
    const figures = await chart.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [r.querySelector('th')!.textContent, r.querySelector('td')!.textContent]));
    expect(figures).toHaveLength(30);
    expect(figures[29]).toEqual([day(now), '3']);
    expect(figures[27]).toEqual([day(now - 2 * 86_400_000), '2']);
    expect(figures.reduce((sum, [, n]) => sum + Number(n), 0)).toBe(5);
    await page.screenshot({ path: join(ARTIFACTS, 'usage-chart.png'), fullPage: true });
    await row(page, id).getByRole('button', { name: 'Hide usage of key checked' }).click();
    expect(await chart.count()).toBe(0);
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
  });
});

describe('401 handling', () => {
  it('a bogus stored token sends the person to the login view with storage cleared', async () => {
    const page = await openPage();
    await page.goto('/');
    await page.evaluate(() => {
      localStorage.setItem('expohub.token', 'not-a-jwt');
      localStorage.setItem('expohub.username', 'mallory');
    });
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await storedLogin(page)).toEqual([null, null, null]);
    expect(await page.getByRole('status').textContent()).toContain('session has ended');
    expect(await page.getByLabel('Phone number').isVisible()).toBe(true);
  });

  it('a session ended on the server mid-use sends the person to the login view on the next call', async () => {
    const { page, token } = await openSignedIn('web-carol');
    await page.getByText('No keys yet').waitFor();
    const claims = await decodeVerifiedToken(token);
    // As a sign-in with openid0/token0 ends it (lib/features/sign-in/sign-in.ts), in a transaction of its own.
    await transactWrite([endSessionItem(claims.jti, claims.exp)]);
    await createThroughForm(page, { name: 'too late' });
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await storedLogin(page)).toEqual([null, null, null]);
    expect(await page.locator('#account').textContent()).toBe('');
    expect(await listKeys(await tokenFor('web-carol'))).toEqual([]);
  });

  it('sign out ends the session on the server and clears the login', async () => {
    const { page, token } = await openSignedIn('web-dave');
    expect((await api.get('/api/v1/me', { token })).status).toBe(200);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await page.getByText('You are signed out.').count()).toBe(1);
    expect(await storedLogin(page)).toEqual([null, null, null]);
    expect((await api.get('/api/v1/me', { token })).status).toBe(401);
  });
});

describe('phone width', () => {
  it('renders the keys as usable cards at 375 x 740', async () => {
    const token = await tokenFor('web-phone');
    const created = await api.post<{ key: KeyRecord }>('/api/v1/api-keys', { token, body: { name: 'phone key with a fairly long name', scopes: ['export:read', 'hub:read'] } });
    expect(created.status).toBe(201);
    const { page } = await openSignedIn('web-phone', { width: 375, height: 740 });
    const card = row(page, created.data.key.id);
    await card.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    const cardBox = await card.boundingBox();
    expect(cardBox!.x).toBeGreaterThanOrEqual(0);
    expect(cardBox!.x + cardBox!.width).toBeLessThanOrEqual(375);
    // Each field is labelled in the card; the header row is not shown.
    expect(await card.locator('[data-col=status]').evaluate((el) => getComputedStyle(el, '::before').content)).toBe('"Status"');
    expect(await page.locator('table.keys thead').evaluate((el) => el.getBoundingClientRect().height)).toBeLessThanOrEqual(1);
    const del = card.getByRole('button', { name: /Delete key/ });
    const delBox = await del.boundingBox();
    expect(delBox!.x + delBox!.width).toBeLessThanOrEqual(375);
    expect(delBox!.height).toBeGreaterThanOrEqual(40);
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'phone.png'), fullPage: true });

    await card.getByRole('button', { name: /Revoke key/ }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await expect.poll(() => card.getAttribute('data-status')).toBe('revoked');
    await createThroughForm(page, { name: 'from the phone' });
    await page.locator('.new-key').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'phone-create-result.png'), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  });
});

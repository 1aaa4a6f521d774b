import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../web/build.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { tokenFor } from '../support/tokens.js';
import { storeLoginAndReload } from '../support/web-session.js';

/** The page's Activity section (web/src/audit-view.ts) in Debian's Chromium, against the local server. */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let browser: Browser;
let buildDir: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  buildDir = await mkdtemp(join(tmpdir(), 'expohub-web-audit-'));
  stack = await startTestStack({ staticDir: await buildWeb(buildDir) });
  api = apiClient(stack.url);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  if (buildDir) await rm(buildDir, { recursive: true, force: true });
});

async function openSignedIn(userId: string, token: string): Promise<Page> {
  const context = await browser.newContext({ baseURL: stack.url, viewport: { width: 1200, height: 900 }, locale: 'en-GB' });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await storeLoginAndReload(page, userId, token);
  await page.getByRole('heading', { level: 2, name: 'Activity' }).waitFor();
  return page;
}

const activityRows = (page: Page) => page.locator('section.audit tbody tr');

describe('the Activity section', () => {
  it('shows the account events newest first, refreshes, pages with Show older, and never shows a key', async () => {
    const user = `web-audit-${Date.now()}`;
    const token = await tokenFor(user);
    const keys: { api_key: string; key: { id: number } }[] = [];
    for (let i = 1; i <= 20; i++) keys.push((await api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token, body: { name: `job ${i}` } })).data);

    const page = await openSignedIn(user, token);
    await expect.poll(() => activityRows(page).count()).toBe(20);
    expect(await activityRows(page).first().innerText()).toContain('Key created');
    expect(await activityRows(page).first().innerText()).toContain(`“job 20” (#${keys[19]!.key.id})`);
    expect(await page.getByRole('button', { name: 'Show older' }).isHidden()).toBe(true);

    expect((await api.post(`/api/v1/api-keys/${keys[0]!.key.id}/revoke`, { token })).status).toBe(200);
    await page.locator('section.audit').getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(async () => activityRows(page).first().getAttribute('data-type')).toBe('key.revoked');
    expect(await activityRows(page).count()).toBe(20);
    await page.getByRole('button', { name: 'Show older' }).click();
    await expect.poll(() => activityRows(page).count()).toBe(21);
    expect(await activityRows(page).last().innerText()).toContain('“job 1”');
    expect(await page.getByRole('button', { name: 'Show older' }).isHidden()).toBe(true);

    const text = await page.locator('section.audit').innerText();
    for (const k of keys) expect(text).not.toContain(k.api_key);
    expect(pageErrors).toEqual([]);
  });

  it('says so when there is no activity', async () => {
    const user = `web-audit-empty-${Date.now()}`;
    const page = await openSignedIn(user, await tokenFor(user));
    await page.getByText('No activity in the last 90 days.').waitFor();
    expect(pageErrors).toEqual([]);
  });
});

import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.js';
import { useWebStack } from '../support/web-browser.js';
import { storeLoginAndReload } from '../support/web-session.js';

/** The page's Activity section (web/src/audit-view.ts) in Debian's Chromium, against the local server. */
const web = useWebStack();

async function openSignedIn(userId: string, token: string): Promise<Page> {
  const page = await web.openPage({ viewport: { width: 1200, height: 900 } });
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
    for (let i = 1; i <= 20; i++) keys.push((await web.api().post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token, body: { name: `job ${i}` } })).data);

    const page = await openSignedIn(user, token);
    await expect.poll(() => activityRows(page).count()).toBe(20);
    expect(await activityRows(page).first().innerText()).toContain('Key created');
    expect(await activityRows(page).first().innerText()).toContain(`“job 20” (#${keys[19]!.key.id})`);
    expect(await page.getByRole('button', { name: 'Show older' }).isHidden()).toBe(true);

    expect((await web.api().post(`/api/v1/api-keys/${keys[0]!.key.id}/revoke`, { token })).status).toBe(200);
    await page.locator('section.audit').getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(async () => activityRows(page).first().getAttribute('data-type')).toBe('key.revoked');
    expect(await activityRows(page).count()).toBe(20);
    await page.getByRole('button', { name: 'Show older' }).click();
    await expect.poll(() => activityRows(page).count()).toBe(21);
    expect(await activityRows(page).last().innerText()).toContain('“job 1”');
    expect(await page.getByRole('button', { name: 'Show older' }).isHidden()).toBe(true);

    const text = await page.locator('section.audit').innerText();
    for (const k of keys) expect(text).not.toContain(k.api_key);
  });

  it('says so when there is no activity', async () => {
    const user = `web-audit-empty-${Date.now()}`;
    const page = await openSignedIn(user, await tokenFor(user));
    await page.getByText('No activity in the last 90 days.').waitFor();
  });
});

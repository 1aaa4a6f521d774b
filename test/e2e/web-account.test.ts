import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { STORAGE_KEYS } from '../../web/src/session.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { latestCode, newPhone, signUp } from '../support/hub-fixtures.js';
import { settleStreams } from '../support/stack.js';
import { useWebStack } from '../support/web-browser.js';
import { storeLoginAndReload } from '../support/web-session.js';

/**
 * The page on a phone (375 px wide, every view) and deleting an account from it: at /account/delete
 * after an SMS sign-in, and by an administrator from the admin tools (docs/web.md, "Deleting an
 * account"). Debian's Chromium against the real local server, as test/e2e/web-page.test.ts.
 */
const ARTIFACTS = resolve(import.meta.dirname, '../../test-artifacts');
const PHONE = { width: 375, height: 740 };

const web = useWebStack();
const api = () => web.api();
beforeAll(async () => {
  await mkdir(ARTIFACTS, { recursive: true });
});

const openPhonePage = () => web.openPage({ viewport: PHONE, timezoneId: 'Asia/Shanghai' });

/** Nothing scrolls sideways: the document is no wider than the 375 px viewport. */
async function expectNoSidewaysScroll(page: Page, view: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `phone-${view}.png`), fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth), view).toBeLessThanOrEqual(PHONE.width);
}

const storedLogin = (page: Page) => page.evaluate((keys) => keys.map((k) => localStorage.getItem(k)), Object.values(STORAGE_KEYS));
const meStatus = async (token: string) => (await api().get('/api/v1/me', { token })).status;

describe('deleting an account at /account/delete', () => {
  it('signs in by SMS, shows what is erased and kept, deletes only once "delete" is typed, follows the state to erased; the token is refused', async () => {
    const phone = newPhone();
    const page = await openPhonePage();
    const deletes: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'DELETE') deletes.push(new URL(r.url()).pathname + new URL(r.url()).search);
    });

    // A deep link: the page itself, with the sign-in and what deleting does before any sign-in.
    const opened = await page.goto('/account/delete');
    expect(opened?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    expect(await page.getByText('Sign in with the phone number of the account you want to delete.').count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'What deleting your account does' }).count()).toBe(1);
    await expectNoSidewaysScroll(page, 'delete-sign-in');

    await page.getByLabel('Phone number').fill(phone);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Verification code').waitFor();
    await expectNoSidewaysScroll(page, 'delete-code');
    await page.getByLabel('Verification code').fill(await latestCode(api(), phone));
    await page.getByRole('button', { name: 'Sign in' }).click();

    const section = page.locator('section#delete-account');
    await page.getByRole('heading', { level: 1, name: 'Delete my account' }).waitFor();
    const [token] = await storedLogin(page);
    expect(await meStatus(token!)).toBe(200);
    const facts = (await section.innerText()).replace(/\s+/g, ' ');
    for (const said of ['phone number', 'likes, dislikes and follows', 'access keys', 'comment deleted', 'deleted account', '90 days', 'at most 24 hours', '32 days', 'new, empty account']) {
      expect(facts, said).toContain(said);
    }
    expect(page.url()).toBe(`${web.url()}/account/delete`);
    await expectNoSidewaysScroll(page, 'delete-confirm');

    // One tap deletes nothing: the button works only once the word is typed.
    const button = page.getByRole('button', { name: 'Delete my account' });
    expect(await button.isDisabled()).toBe(true);
    await page.getByLabel('Type “delete” to confirm').fill('delet');
    expect(await button.isDisabled()).toBe(true);
    await page.getByLabel('Type “delete” to confirm').press('Enter');
    expect(deletes).toEqual([]);
    expect(await meStatus(token!)).toBe(200);

    await page.getByLabel('Type “delete” to confirm').fill('delete');
    await button.click();
    await page.getByRole('heading', { level: 1, name: 'Your account is being deleted' }).waitFor();
    expect(deletes).toEqual(['/api/v1/me?confirm=delete']);
    const progress = page.locator('.deletion-progress');
    const id = (await progress.getAttribute('data-deletion-id'))!;
    expect(id).toMatch(/^del_/);
    expect(await progress.locator('[data-field=deletion-state]').textContent()).toMatch(/^erasing|^erased$/);
    // Signed out here, and the token is refused everywhere.
    expect(await storedLogin(page)).toEqual([null, null, null]);
    expect(await page.locator('#account').textContent()).toBe('');
    const refused = await api().get<unknown>('/api/v1/me', { token: token! });
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).toContain('This account has been deleted');
    await expectNoSidewaysScroll(page, 'delete-erasing');

    // The erasure runs from the table's stream; once it has, the page shows "erased".
    await settleStreams();
    // Asked now rather than at the page's next 2-second check (the button is hidden once erased).
    await progress.getByRole('button', { name: 'Check again', includeHidden: true }).dispatchEvent('click');
    await expect.poll(() => progress.getAttribute('data-state')).toBe('erased');
    expect(await progress.locator('[data-field=deletion-state]').textContent()).toBe('erased');
    expect(await progress.locator('[data-field=deletion-completed] time').count()).toBe(1);
    expect((await api().get<{ deletion: { state: string } }>(`/api/v1/deletions/${id}`)).data.deletion.state).toBe('erased');
    await expectNoSidewaysScroll(page, 'delete-erased');
  });
});

describe('the signed-in page at 375 px, and the admin tools', () => {
  it('keys with their usage chart, activity in words, admin tools and the deletion section all fit; an administrator deletes an account after confirming', async () => {
    const admin = await signUp(api(), ADMIN_PHONE);
    const member = await signUp(api());
    const created = await api().post<{ key: { id: number } }>('/api/v1/api-keys', { token: member.token, body: { name: 'a key with a rather long name for a phone', scopes: ['export:read', 'hub:read'] } });
    expect(created.status).toBe(201);
    // An administrator's action on the member's account: the member's trail shows it as such.
    expect((await api().post(`/api/v1/admin/api-keys/${created.data.key.id}/revoke`, { token: admin.token })).status).toBe(200);

    const page = await openPhonePage();
    await storeLoginAndReload(page, member.openid, member.token);
    const card = page.locator(`tr[data-key-id="${created.data.key.id}"]`);
    await card.waitFor();
    await expectNoSidewaysScroll(page, 'keys');
    await card.getByRole('button', { name: /Show usage/ }).click();
    await card.locator('figure.usage').waitFor();
    await card.getByText('Figures per day').click();
    await expectNoSidewaysScroll(page, 'usage-chart');

    const activity = page.locator('section.audit');
    await expect.poll(() => activity.locator('tbody tr').count()).toBe(2);
    const by = await activity.locator('[data-field=actor]').allTextContents();
    expect(by).toEqual(['an administrator', 'you']); // newest first: the revoke, then the create
    expect(await activity.innerText()).not.toContain('u_');
    await expectNoSidewaysScroll(page, 'activity');
    // Each event a card of labelled fields.
    expect(await activity.locator('tbody tr').first().locator('td[data-label=By]').evaluate((el) => getComputedStyle(el, '::before').content)).toBe('"By"');
    // No admin tools for a member; the deletion section closes the page.
    expect(await page.getByRole('heading', { name: 'Admin tools' }).count()).toBe(0);
    await page.getByRole('heading', { level: 2, name: 'Delete my account' }).waitFor();

    // The administrator's page: the admin tools, then deleting the member's account.
    const adminPage = await openPhonePage();
    await storeLoginAndReload(adminPage, admin.openid, admin.token);
    const tools = adminPage.locator('section.admin-tools');
    await tools.waitFor();
    await expectNoSidewaysScroll(adminPage, 'admin-tools');
    await tools.getByLabel('Account (openid)').fill(member.openid);
    await tools.getByRole('button', { name: 'Delete this account' }).click();
    const dialog = adminPage.getByRole('dialog', { name: 'Delete this account?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(member.openid);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await meStatus(member.token)).toBe(200);

    await tools.getByRole('button', { name: 'Delete this account' }).click();
    await adminPage.getByRole('dialog', { name: 'Delete this account?' }).getByRole('button', { name: 'Delete account' }).click();
    const progress = tools.locator('.deletion-progress');
    await progress.waitFor();
    expect(await progress.getAttribute('data-deletion-id')).toMatch(/^del_/);
    expect(await meStatus(member.token)).toBe(401);
    expect(await meStatus(admin.token)).toBe(200);
    await expectNoSidewaysScroll(adminPage, 'admin-deleted');

    // The member's open page finds its token refused at the next call.
    await activity.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await storedLogin(page)).toEqual([null, null, null]);
  });
});

import { describe, expect, it } from 'vitest';
import { ADMIN_PHONE } from '../support/constants.js';
import { signUp } from '../support/hub-fixtures.js';
import { useWebStack } from '../support/web-browser.js';
import { storeLoginAndReload } from '../support/web-session.js';

/** The filter's term list in the page's admin tools (docs/web.md, "Admin tools"; docs/moderation.md, "Filter"). */
const web = useWebStack();

describe('the admin tools: filter terms', () => {
  it('an administrator sees the list, adds a term (stored normalised) and removes it', async () => {
    const admin = await signUp(web.api(), ADMIN_PHONE);
    expect((await web.api().post('/api/v1/admin/filter-terms', { token: admin.token, body: { terms: [{ term: 'junk', action: 'reject' }] } })).status).toBe(200);
    const page = await web.openPage({ viewport: { width: 375, height: 740 } });
    await storeLoginAndReload(page, admin.openid, admin.token);
    const terms = page.locator('.filter-terms');
    await terms.getByRole('heading', { name: 'Filter terms' }).waitFor();
    await terms.getByRole('cell', { name: 'junk', exact: true }).waitFor();
    expect(await terms.getByText('1 term, version 1.').count()).toBe(1);

    await terms.getByLabel('Term', { exact: true }).fill('Ｓ.P.A.M');
    await terms.getByLabel('Action').selectOption('hold');
    await terms.getByRole('button', { name: 'Add term' }).click();
    await terms.getByRole('cell', { name: 'spam', exact: true }).waitFor();
    expect(await terms.getByText('2 terms, version 2.').count()).toBe(1);
    const stored = await web.api().get<{ terms: { term: string; action: string }[] }>('/api/v1/admin/filter-terms', { token: admin.token });
    expect(stored.data.terms).toEqual([
      { term: 'junk', action: 'reject' },
      { term: 'spam', action: 'hold' },
    ]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);

    await terms.getByRole('button', { name: 'Remove junk' }).click();
    await terms.getByText('1 term, version 3.').waitFor();
    expect((await web.api().get<{ terms: unknown[] }>('/api/v1/admin/filter-terms', { token: admin.token })).data.terms).toEqual([{ term: 'spam', action: 'hold' }]);
  });
});

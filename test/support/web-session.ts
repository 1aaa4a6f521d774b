import type { Page } from 'playwright-core';
import { STORAGE_KEYS } from '../../web/src/session.js';

/**
 * Signs a browser page in as if create_phone_account had answered: the login is put where the page
 * keeps it, then the page is loaded again and reads it. The caller waits for what it expects to see.
 */
export async function storeLoginAndReload(page: Page, userId: string, token: string): Promise<void> {
  await page.goto('/');
  await page.evaluate(
    ([storage, t, u]) => {
      localStorage.setItem(storage.token, t);
      localStorage.setItem(storage.username, u);
    },
    [STORAGE_KEYS, token, userId] as const,
  );
  await page.reload();
}

import type { Page } from 'playwright-core';

/** The keys under which the key-management page keeps its login (web/src/session.ts). */
export const LOGIN_STORAGE = { token: 'expohub.token', username: 'expohub.username' } as const;

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
    [LOGIN_STORAGE, token, userId] as const,
  );
  await page.reload();
}

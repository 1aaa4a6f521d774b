import { ApiError, client, onUnauthorized } from './api.js';
import { auditSection } from './audit-view.js';
import { h, replaceChildren } from './dom.js';
import { renderKeys } from './keys-view.js';
import { renderLogin } from './login-view.js';
import { session, STORAGE_KEYS } from './session.js';
import { announce, clearStatus } from './status.js';

const app = document.getElementById('app') as HTMLElement;
const account = document.getElementById('account') as HTMLElement;
let current: 'login' | 'keys' | undefined;

function focusHeading(): void {
  app.querySelector<HTMLElement>('h1')?.focus();
}

function showLogin(notice?: string): void {
  current = 'login';
  account.replaceChildren();
  renderLogin(app, () => {
    showKeys();
    focusHeading();
  });
  if (notice) announce(notice, 'info');
}

/**
 * Ends the token's session on the server (POST /api/v1/logout), then forgets it here. Should the
 * server not answer, the page forgets it all the same and says the token stays valid until it expires.
 */
async function signOut(): Promise<void> {
  let ended = true;
  try {
    await client.post('/api/v1/logout');
  } catch (error) {
    // 401: the token no longer works anyway.
    ended = error instanceof ApiError && error.status === 401;
  }
  session.clear();
  showLogin(ended ? 'You are signed out.' : 'You are signed out on this device, but the server could not be reached: the sign-in stays valid until it expires.');
  focusHeading();
}

function showKeys(): void {
  current = 'keys';
  replaceChildren(
    account,
    h('span', { class: 'who' }, 'Signed in as ', h('strong', {}, session.displayName() ?? '')),
    h('button', { type: 'button', class: 'small', onclick: () => void signOut() }, 'Sign out'),
  );
  renderKeys(app);
  app.append(auditSection());
}

// A 401 on a call made with the login token discards it and the username and shows the login view,
// unless that view is already showing (docs/web.md, "What it does").
onUnauthorized(() => {
  session.clear();
  if (current === 'login') return;
  clearStatus();
  showLogin('Your session has ended. Please sign in again.');
  focusHeading();
});

// Signing out in another tab signs out this one too.
window.addEventListener('storage', (event) => {
  if ((event.key === STORAGE_KEYS.token || event.key === null) && !session.token() && current === 'keys') showLogin('You were signed out in another tab.');
});

if (session.token()) showKeys();
else showLogin();

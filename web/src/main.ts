import { ApiError, client, onUnauthorized } from './api.js';
import { adminSection } from './admin-view.js';
import { moderationSection } from './moderation-view.js';
import { auditSection } from './audit-view.js';
import { deletionFacts, deletionSection, renderDeleted, type Deletion } from './deletion-view.js';
import { h, replaceChildren } from './dom.js';
import { renderKeys } from './keys-view.js';
import { renderLogin } from './login-view.js';
import { isDeleteAccountPath } from './page-paths.js';
import { session, STORAGE_KEYS } from './session.js';
import { announce, clearStatus } from './status.js';

const app = document.getElementById('app') as HTMLElement;
const account = document.getElementById('account') as HTMLElement;
/** Opened at /account/delete (web/src/page-paths.ts): that view after sign-in, instead of the keys. */
const deletePage = isDeleteAccountPath(location.pathname);
let current: 'login' | 'keys' | 'delete' | 'deleted' | undefined;

function focusHeading(): void {
  app.querySelector<HTMLElement>('h1')?.focus();
}

function showLogin(notice?: string): void {
  current = 'login';
  account.replaceChildren();
  renderLogin(
    app,
    () => {
      showSignedIn();
      focusHeading();
    },
    deletePage ? 'Sign in with the phone number of the account you want to delete.' : undefined,
  );
  // Before signing in, the person can read what deleting does.
  if (deletePage) app.append(h('section', { class: 'card', 'aria-labelledby': 'facts-heading' }, h('h2', { id: 'facts-heading' }, 'What deleting your account does'), deletionFacts()));
  if (notice) announce(notice, 'info');
}

/**
 * Ends the token's session on the server (POST /api/v1/logout), then forgets it here. Should the
 * server not answer, the page forgets it all the same and says the token stays valid until it expires.
 */
async function signOut(): Promise<void> {
  let ended = true;
  try {
    await client.auth.signOut();
  } catch (error) {
    // 401: the token no longer works anyway.
    ended = error instanceof ApiError && error.status === 401;
  }
  session.clear();
  showLogin(ended ? 'You are signed out.' : 'You are signed out on this device, but the server could not be reached: the sign-in stays valid until it expires.');
  focusHeading();
}

function showAccountBar(): void {
  replaceChildren(
    account,
    h('span', { class: 'who' }, 'Signed in as ', h('strong', {}, session.displayName() ?? '')),
    h('button', { type: 'button', class: 'small', onclick: () => void signOut() }, 'Sign out'),
  );
}

/** The account is deleted: its token is refused from now on, so the page forgets it and shows the deletion's state. */
function showDeleted(deletion: Deletion): void {
  current = 'deleted';
  session.clear();
  account.replaceChildren();
  renderDeleted(app, deletion);
  announce('Your account has been deleted, and you are signed out.', 'success');
  focusHeading();
}

function showSignedIn(): void {
  if (deletePage) showDeletePage();
  else showKeys();
}

function showDeletePage(): void {
  current = 'delete';
  showAccountBar();
  document.title = 'Delete my account · expohub';
  replaceChildren(app, deletionSection({ heading: 'h1', onDeleted: showDeleted }), h('p', {}, h('a', { href: '/' }, 'Back to your access keys')));
}

function showKeys(): void {
  current = 'keys';
  showAccountBar();
  renderKeys(app);
  const adminSlot = h('div');
  const moderationSlot = h('div');
  app.append(auditSection(), moderationSlot, adminSlot, deletionSection({ heading: 'h2', onDeleted: showDeleted }));
  // Admin tools only for a login that holds the admin role, moderation for a moderator or an admin (the API refuses the others anyway).
  client.me
    .get()
    .then((me) => {
      if (current !== 'keys') return;
      if (me.roles.includes('moderator') || me.roles.includes('admin')) moderationSlot.replaceWith(moderationSection());
      if (me.roles.includes('admin')) adminSlot.replaceWith(adminSection());
    })
    .catch(() => undefined);
}

// A 401 on a call made with the login token discards it and the username and shows the login view,
// unless that view is already showing, or the account was just deleted (docs/web.md, "What it does").
onUnauthorized(() => {
  session.clear();
  if (current === 'login' || current === 'deleted') return;
  clearStatus();
  showLogin('Your session has ended. Please sign in again.');
  focusHeading();
});

// Signing out in another tab signs out this one too.
window.addEventListener('storage', (event) => {
  if ((event.key === STORAGE_KEYS.token || event.key === null) && !session.token() && (current === 'keys' || current === 'delete')) showLogin('You were signed out in another tab.');
});

if (session.token()) showSignedIn();
else showLogin();

import type { MeDeletionStatusData } from '../../client/src/index.js';
import { client, errorMessage } from './api.js';
import { h, replaceChildren } from './dom.js';
import { timeCell } from './format.js';

/** A deletion as `GET /api/v1/deletions/{id}` answers it (docs/accounts.md, "Delete my account"). */
export type Deletion = MeDeletionStatusData['deletion'];

/** How often, and how many times, the page asks for a deletion's state before it leaves it to a button. */
export const DELETION_POLL_MS = 2_000;
export const DELETION_MAX_POLLS = 30;

/** What the API says it erases and keeps (docs/web.md, "Deleting an account"), for the person to read first. */
export function deletionFacts(): HTMLElement {
  const list = (...items: (string | Node)[][]) => h('ul', {}, ...items.map((content) => h('li', {}, ...content)));
  return h(
    'div',
    { class: 'deletion-facts' },
    h('h3', {}, 'What is erased'),
    list(
      ['Your profile and your phone number.'],
      ['Your likes, dislikes and follows (whom you follow and who follows you).'],
      ['Your viewing history and your feed.'],
      ['Your access keys: scripts that use them stop working.'],
      ['The link between your shares and your account.'],
      ['Your activity (the audit trail).'],
    ),
    h('h3', {}, 'What stays, without your name'),
    list(
      ['Your comments become “comment deleted” markers, without text or author, so that other people’s comment numbers and counts stay right.'],
      ['Videos you published as an editor stay in the catalog, with the author shown as “deleted account”.'],
    ),
    h('h3', {}, 'What is kept for a while, and why'),
    list(
      [h('strong', {}, 'A record that the deletion happened'), ', with no personal data, for 90 days: proof that the account was erased, and for security.'],
      [h('strong', {}, 'The SMS limits of your phone number'), ' until they end (at most 24 hours), so that deleting and re-creating an account cannot reset them.'],
      [h('strong', {}, 'Usage counts of your keys'), ' (counts only) until they expire, within 32 days.'],
    ),
    h('p', {}, h('strong', {}, 'This cannot be undone.'), ' Signing in again with the same phone number creates a new, empty account.'),
  );
}

/**
 * A deletion's state, asked again every DELETION_POLL_MS (public: the id is the credential) until
 * `erased` or DELETION_MAX_POLLS asks, then on "Check again". Stops when the element leaves the page.
 */
export function deletionProgress(initial: Deletion): HTMLElement {
  const state = h('strong', { 'data-field': 'deletion-state' });
  const completed = h('span', { 'data-field': 'deletion-completed' });
  const check = h('button', { type: 'button', class: 'small' }, 'Check again');
  const problem = h('p', { class: 'field-error', hidden: true });
  const box = h(
    'div',
    { class: 'deletion-progress', 'aria-live': 'polite', 'data-deletion-id': initial.id },
    h(
      'dl',
      {},
      h('dt', {}, 'Deletion'),
      h('dd', {}, h('code', {}, initial.id)),
      h('dt', {}, 'Requested'),
      h('dd', {}, timeCell(initial.requested_at)),
      h('dt', {}, 'State'),
      h('dd', {}, state),
      h('dt', {}, 'Completed'),
      h('dd', {}, completed),
    ),
    problem,
    h('div', { class: 'actions' }, check),
  );

  let polls = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const show = (deletion: Deletion) => {
    box.dataset.state = deletion.state;
    state.textContent = deletion.state === 'erased' ? 'erased' : 'erasing (in progress)';
    replaceChildren(completed, deletion.completed_at ? timeCell(deletion.completed_at) : 'not yet');
    check.hidden = deletion.state === 'erased';
  };
  // A timer that finds the box gone from the page stops asking.
  const later = () => {
    timer = setTimeout(() => {
      if (box.isConnected) void refresh();
    }, DELETION_POLL_MS);
  };
  async function refresh(): Promise<void> {
    clearTimeout(timer);
    polls += 1;
    check.disabled = true;
    try {
      const answer = await client.me.deletionStatus({ id: initial.id });
      problem.hidden = true;
      show(answer.deletion);
      if (answer.deletion.state === 'erased') return;
    } catch (error) {
      problem.hidden = false;
      problem.textContent = `Could not check the deletion: ${errorMessage(error)}`;
    } finally {
      check.disabled = false;
    }
    if (polls < DELETION_MAX_POLLS) later();
  }
  check.addEventListener('click', () => {
    polls = 0;
    void refresh();
  });
  show(initial);
  if (initial.state !== 'erased') later();
  return box;
}

/** The word a person types to confirm, as the API's `confirm` parameter takes it. */
const CONFIRM_WORD = 'delete';

/**
 * "Delete my account": what is erased and kept, then a field where the person types "delete" before
 * the button works (one tap alone deletes nothing), then `DELETE /api/v1/me?confirm=delete` with the
 * login token. `onDeleted` gets the deletion; from then on the token is refused.
 */
export function deletionSection(options: { heading: 'h1' | 'h2'; onDeleted: (deletion: Deletion) => void }): HTMLElement {
  const input = h('input', { id: 'delete-confirm', name: 'confirm', type: 'text', autocomplete: 'off', autocapitalize: 'none', spellcheck: 'false', 'aria-describedby': 'delete-confirm-hint delete-error' });
  const submit = h('button', { type: 'submit', class: 'danger', disabled: true }, 'Delete my account');
  const failure = h('p', { id: 'delete-error', class: 'field-error', hidden: true });
  const form = h(
    'form',
    { novalidate: true, class: 'delete-form' },
    h('label', { for: 'delete-confirm' }, `Type “${CONFIRM_WORD}” to confirm`),
    input,
    h('p', { id: 'delete-confirm-hint', class: 'hint' }, 'The button works once the word is typed.'),
    failure,
    h('div', { class: 'actions' }, submit),
  );
  const confirmed = () => input.value.trim().toLowerCase() === CONFIRM_WORD;
  input.addEventListener('input', () => (submit.disabled = !confirmed()));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!confirmed()) {
      input.focus();
      return;
    }
    submit.disabled = true;
    submit.textContent = 'Deleting…';
    failure.hidden = true;
    try {
      const answer = await client.me.delete({ confirm: CONFIRM_WORD });
      options.onDeleted(answer.deletion);
    } catch (error) {
      // A 401 has already shown the login view (main.ts); anything else is said here, and may be retried.
      failure.textContent = errorMessage(error);
      failure.hidden = false;
      submit.disabled = !confirmed();
      submit.textContent = 'Delete my account';
    }
  });
  return h(
    'section',
    { class: 'card danger-zone', id: 'delete-account', 'aria-labelledby': 'delete-heading' },
    h(options.heading, { id: 'delete-heading', tabindex: '-1' }, 'Delete my account'),
    h('p', {}, 'Deleting your account erases it for good. Read what happens first:'),
    deletionFacts(),
    form,
  );
}

/** After the deletion: its state until erased; the person is signed out on this page already. */
export function renderDeleted(container: HTMLElement, deletion: Deletion): void {
  document.title = 'Account deleted · expohub';
  replaceChildren(
    container,
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'deleted-heading' },
      h('h1', { id: 'deleted-heading', tabindex: '-1' }, 'Your account is being deleted'),
      h('p', {}, 'You are signed out: the sign-in and every access key of the account are refused from now on. Erasing finishes in the background; this page shows when it is done.'),
      deletionProgress(deletion),
      h('p', {}, h('a', { href: '/' }, 'Back to the start page')),
    ),
  );
}

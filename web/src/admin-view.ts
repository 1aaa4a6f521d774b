import { client, errorMessage } from './api.js';
import { confirmAction } from './confirm.js';
import { deletionProgress } from './deletion-view.js';
import { field, fieldError, h, replaceChildren } from './dom.js';
import { filterTermsSection } from './filter-terms-view.js';
import { announce } from './status.js';

/**
 * Admin tools, shown to an account whose login holds the admin role: "Delete this account" for an
 * openid (`DELETE /api/v1/admin/users/{openid}?confirm=delete`), after a confirmation dialog, then
 * the deletion's state; the filter's term list (docs/web.md, "Admin tools").
 */
export function adminSection(): HTMLElement {
  const input = h('input', { name: 'openid', type: 'text', autocomplete: 'off', spellcheck: 'false', class: 'mono' });
  const submit = h('button', { type: 'submit', class: 'danger' }, 'Delete this account');
  const result = h('div', { class: 'admin-result' });
  const form = h(
    'form',
    { novalidate: true, 'aria-labelledby': 'admin-delete-heading' },
    field('admin-openid', 'Account (openid)', input, 'The account’s openid (u_…), as the admin API and the exports name it.'),
    h('div', { class: 'actions' }, submit),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const openid = input.value.trim();
    fieldError(input, '');
    if (openid === '') {
      fieldError(input, 'Enter the openid of the account to delete.');
      input.focus();
      return;
    }
    const confirmed = await confirmAction({
      title: 'Delete this account?',
      message: `Account ${openid} will be erased for good: its profile, phone number, likes, follows, history, keys and activity; its comments become “comment deleted” markers. Its sign-ins and keys are refused at once. This cannot be undone.`,
      confirmLabel: 'Delete account',
      danger: true,
    });
    if (!confirmed) return;
    submit.disabled = true;
    result.replaceChildren();
    try {
      const answer = await client.admin.deleteAccount({ openid, confirm: 'delete' });
      announce(`Account ${openid} is being deleted.`, 'success');
      form.reset();
      replaceChildren(result, h('p', {}, 'Deleting account ', h('code', {}, openid), ':'), deletionProgress(answer.deletion));
    } catch (failure) {
      fieldError(input, errorMessage(failure));
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });
  return h(
    'section',
    { class: 'card admin-tools', 'aria-labelledby': 'admin-heading' },
    h('h2', { id: 'admin-heading' }, 'Admin tools'),
    h('h3', { id: 'admin-delete-heading' }, 'Delete an account'),
    form,
    result,
    filterTermsSection(),
  );
}

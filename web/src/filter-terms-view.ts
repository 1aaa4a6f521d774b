import type { ModerationFilterTermsData } from '../../client/src/index.js';
import { client, errorMessage } from './api.js';
import { field, fieldError, h, replaceChildren } from './dom.js';
import { announce } from './status.js';

/** The filter's term list as the API answers it (docs/moderation.md, "Filter"). */
type TermList = ModerationFilterTermsData;

/**
 * The filter terms in the admin tools (docs/web.md, "Admin tools"): the list (term, action, Remove),
 * and a form that adds a term or replaces its action. Each change answers the whole list, shown as is.
 */
export function filterTermsSection(): HTMLElement {
  const body = h('tbody');
  const summary = h('p', { class: 'hint' });
  const input = h('input', { name: 'term', type: 'text', autocomplete: 'off', spellcheck: 'false', maxlength: '40' });
  const action = h('select', { name: 'action', 'aria-label': 'Action' }, h('option', { value: 'reject' }, 'Reject'), h('option', { value: 'hold' }, 'Hold for review'));
  const submit = h('button', { type: 'submit' }, 'Add term');
  const form = h(
    'form',
    { novalidate: true, class: 'filter-term-form', 'aria-labelledby': 'filter-terms-heading' },
    field('filter-term', 'Term', input, 'Matched after folding case, full-width forms and separators; English terms match whole words.'),
    h('div', { class: 'actions' }, action, submit),
  );

  const show = (list: TermList) => {
    summary.textContent = `${list.terms.length} term${list.terms.length === 1 ? '' : 's'}, version ${list.version}.`;
    replaceChildren(
      body,
      ...list.terms.map((t) => {
        const remove = h('button', { type: 'button', class: 'danger', 'aria-label': `Remove ${t.term}` }, 'Remove');
        remove.addEventListener('click', async () => {
          remove.disabled = true;
          try {
            show(await client.moderation.deleteFilterTerm({ term: t.term }));
            announce(`Removed the term ${t.term}.`, 'success');
          } catch (failure) {
            announce(errorMessage(failure), 'error');
            remove.disabled = false;
          }
        });
        return h('tr', {}, h('td', { class: 'mono' }, t.term), h('td', {}, t.action === 'reject' ? 'Reject' : 'Hold for review'), h('td', {}, remove));
      }),
    );
  };

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const term = input.value.trim();
    fieldError(input, '');
    if (term === '') {
      fieldError(input, 'Enter a term.');
      input.focus();
      return;
    }
    submit.disabled = true;
    try {
      show(await client.moderation.putFilterTerms({ terms: [{ term, action: action.value as 'reject' | 'hold' }] }));
      announce(`The term list now holds ${term}.`, 'success');
      form.reset();
    } catch (failure) {
      fieldError(input, errorMessage(failure));
      input.focus();
    } finally {
      submit.disabled = false;
    }
  });

  void client.moderation.filterTerms().then(show, (failure: unknown) => {
    summary.textContent = errorMessage(failure);
  });
  return h(
    'div',
    { class: 'filter-terms' },
    h('h3', { id: 'filter-terms-heading' }, 'Filter terms'),
    summary,
    h('table', { class: 'filter-term-table' }, h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Term'), h('th', { scope: 'col' }, 'Action'), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Remove')))), body),
    form,
  );
}

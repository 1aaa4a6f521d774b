import { errorMessage } from './api.js';
import { h, replaceChildren } from './dom.js';

/**
 * A table read page by page from a cursor-paged list of the API (Activity, the moderation queue):
 * the slot that shows it (busy while loading, the empty text, or the error), the "more" button that
 * appends the next page, and `load(true)` to read it again from the start. A load that a later one
 * overtook is dropped.
 */
export function pagedTable<T>(options: {
  fetch: (cursor: string | undefined) => Promise<{ items: T[]; next_cursor: string | null }>;
  row: (item: T) => HTMLElement;
  headings: string[];
  tableClass: string;
  loading: string;
  empty: string;
  more: string;
}): { slot: HTMLElement; more: HTMLButtonElement; load: (reset: boolean) => Promise<void> } {
  const body = h('tbody');
  const slot = h('div', { class: 'list-slot', 'aria-busy': 'true' }, h('p', { class: 'muted' }, options.loading));
  const more = h('button', { type: 'button', class: 'small', hidden: true }, options.more);
  let cursor: string | null = null;
  let seq = 0;

  async function load(reset: boolean): Promise<void> {
    const mine = ++seq;
    slot.setAttribute('aria-busy', 'true');
    try {
      const page = await options.fetch(!reset && cursor ? cursor : undefined);
      if (mine !== seq) return;
      if (reset) body.replaceChildren();
      body.append(...page.items.map(options.row));
      cursor = page.next_cursor;
      more.hidden = cursor === null;
      if (body.childElementCount === 0) replaceChildren(slot, h('p', { class: 'empty' }, options.empty));
      else replaceChildren(slot, h('table', { class: options.tableClass }, h('thead', {}, h('tr', {}, ...options.headings.map((t) => h('th', {}, t)))), body));
    } catch (error) {
      if (mine === seq) replaceChildren(slot, h('p', { class: 'verify-bad' }, errorMessage(error)));
    } finally {
      if (mine === seq) slot.setAttribute('aria-busy', 'false');
    }
  }
  more.addEventListener('click', () => void load(false));
  return { slot, more, load };
}

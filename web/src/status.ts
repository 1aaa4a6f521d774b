import { h, replaceChildren } from './dom.js';

/**
 * The page's one aria-live region (in index.html, always present so that screen readers announce
 * changes; empty when there is nothing to say): results of actions and the envelope's `error`,
 * in words. Errors stay until dismissed or replaced; they are never only a colour.
 */
const region = () => document.getElementById('status') as HTMLElement;

export function announce(message: string, kind: 'info' | 'success' | 'error' = 'info'): void {
  const el = region();
  el.dataset.kind = kind;
  replaceChildren(
    el,
    h('span', { class: 'status-text' }, kind === 'error' && h('strong', {}, 'Error: '), message),
    h('button', { type: 'button', class: 'link-button status-close', 'aria-label': 'Dismiss message', onclick: () => clearStatus() }, '×'),
  );
}

export function clearStatus(): void {
  const el = region();
  el.replaceChildren();
  delete el.dataset.kind;
}

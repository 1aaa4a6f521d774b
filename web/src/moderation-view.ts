import type { ResponseData } from '../../lib/openapi/client.js';
import { client, errorMessage } from './api.js';
import { confirmAction } from './confirm.js';
import { h } from './dom.js';
import { pagedTable } from './paged-table.js';
import { timeCell } from './format.js';
import { announce } from './status.js';

/** A case of `GET /api/v1/moderation/reports`, as the API document types it. */
export type QueueEntry = ResponseData<'/api/v1/moderation/reports', 'get'>['items'][number];
type Action = 'remove' | 'dismiss' | 'suspend';

const ACTIONS: { action: Action; label: string; danger: boolean; applies: (e: QueueEntry) => boolean; confirm: (e: QueueEntry) => string }[] = [
  {
    action: 'remove',
    label: 'Remove',
    danger: true,
    applies: (e) => e.target.type !== 'user',
    confirm: (e) => (e.target.type === 'comment' ? 'The comment becomes a “comment removed” marker for everyone.' : 'The video leaves the catalog, the feeds, search and its share links.'),
  },
  { action: 'dismiss', label: 'Dismiss', danger: false, applies: () => true, confirm: () => 'The reports are closed as dismissed; the content stays.' },
  {
    action: 'suspend',
    label: 'Suspend author',
    danger: true,
    applies: () => true,
    confirm: (e) => `Account ${e.author.nickname || e.author.openid} is suspended: its sign-ins and keys are refused from the next request.`,
  },
];

const reasons = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');

/**
 * The moderation view (docs/web.md, "Moderation"), shown to a login whose roles hold `moderator` or
 * `admin`: the queue of reported targets, oldest open report first, 20 at a time with "Show more",
 * and on each the actions, after a confirmation dialog. Each decision closes every open report of
 * the target (its reporters see the outcome in the app).
 */
export function moderationSection(): HTMLElement {
  const refresh = h('button', { type: 'button', class: 'small' }, 'Refresh');
  const cell = (label: string, ...content: (Node | string)[]) => h('td', { 'data-label': label }, ...content);
  async function decide(entry: QueueEntry, choice: (typeof ACTIONS)[number], button: HTMLButtonElement): Promise<void> {
    const confirmed = await confirmAction({ title: `${choice.label}: ${entry.target.type} ${entry.target.id}?`, message: choice.confirm(entry), confirmLabel: choice.label, danger: choice.danger });
    if (!confirmed) return;
    button.disabled = true;
    try {
      const result = await client.post('/api/v1/moderation/actions', { body: { target: entry.target, action: choice.action } });
      announce(`${entry.target.type} ${entry.target.id}: ${result.state}, ${result.reports} report${result.reports === 1 ? '' : 's'} closed.`, 'success');
      await load(true);
    } catch (error) {
      announce(errorMessage(error), 'error');
      button.disabled = false;
    }
  }
  const row = (e: QueueEntry) => {
    const buttons = ACTIONS.filter((a) => a.applies(e)).map((a) => {
      const button = h('button', { type: 'button', class: a.danger ? 'small danger' : 'small', 'data-action': a.action }, a.label);
      button.addEventListener('click', () => void decide(e, a, button));
      return button;
    });
    return h(
      'tr',
      { 'data-target': `${e.target.type}:${e.target.id}` },
      cell('Reported', `${e.target.type} `, h('code', {}, e.target.id)),
      cell('Content', h('span', { class: 'preview' }, e.preview)),
      cell('Author', e.author.nickname || '(deleted)', ' ', h('code', {}, e.author.openid)),
      cell('Reports', `${e.report_count}: ${reasons(e.reasons)}`),
      cell('Waiting since', timeCell(e.oldest_report_at)),
      cell('Decide', h('div', { class: 'actions' }, ...buttons)),
    );
  };
  const { slot, more, load } = pagedTable({
    fetch: (cursor) => client.get('/api/v1/moderation/reports', { query: { limit: '20', ...(cursor ? { cursor } : {}) } }),
    row,
    headings: ['Reported', 'Content', 'Author', 'Reports', 'Waiting since', 'Decide'],
    tableClass: 'moderation-table',
    loading: 'Loading reports…',
    empty: 'No open reports.',
    more: 'Show more',
  });
  refresh.addEventListener('click', () => void load(true));
  void load(true);
  return h(
    'section',
    { class: 'card moderation', 'aria-labelledby': 'moderation-heading' },
    h('div', { class: 'section-head' }, h('h2', { id: 'moderation-heading' }, 'Moderation'), refresh),
    h('p', { class: 'muted' }, 'Reported videos, comments and users, oldest first. The app stores expect a decision within 24 hours.'),
    slot,
    more,
  );
}

import type { ModerationQueueData } from '../../client/src/index.js';
import { client, errorMessage } from './api.js';
import { confirmAction } from './confirm.js';
import { h } from './dom.js';
import { pagedTable } from './paged-table.js';
import { timeCell } from './format.js';
import { announce } from './status.js';

/** An entry of `GET /api/v1/moderation/reports` (a case, or held content), as the API document types it. */
export type QueueEntry = ModerationQueueData['items'][number];
type Action = 'remove' | 'dismiss' | 'suspend' | 'approve';
type Choice = { action: Action; label: string; danger: boolean; applies: (e: QueueEntry) => boolean; confirm: (e: QueueEntry) => string };

const heldWhat = (e: QueueEntry) => (e.target.type === 'user' ? `the profile's ${e.kind === 'held' ? e.fields.join(', ') : 'fields'}` : `the ${e.target.type}`);
const ACTIONS: Choice[] = [
  {
    action: 'approve',
    label: 'Approve',
    danger: false,
    applies: (e) => e.kind === 'held',
    confirm: (e) => `Publishes ${heldWhat(e)} as written, for everyone (a comment takes its place at the end of the list).`,
  },
  {
    action: 'remove',
    label: 'Discard',
    danger: true,
    applies: (e) => e.kind === 'held',
    confirm: (e) => `Discards ${heldWhat(e)}: nobody sees it and the author is not told.`,
  },
  {
    action: 'remove',
    label: 'Remove',
    danger: true,
    applies: (e) => e.kind === 'reports' && e.target.type !== 'user',
    confirm: (e) => (e.target.type === 'comment' ? 'The comment becomes a “comment removed” marker for everyone.' : 'The video leaves the catalog, the feeds, search and its share links.'),
  },
  { action: 'dismiss', label: 'Dismiss', danger: false, applies: (e) => e.kind === 'reports', confirm: () => 'The reports are closed as dismissed; the content stays.' },
  {
    action: 'suspend',
    label: 'Suspend author',
    danger: true,
    applies: (e) => e.kind === 'reports',
    confirm: (e) => `Account ${e.author.nickname || e.author.openid} is suspended: its sign-ins and keys are refused from the next request.`,
  },
];

const reasons = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');

/**
 * The moderation view (docs/web.md, "Moderation"), shown to a login whose roles hold `moderator` or
 * `admin`: the queue of reported targets and held content, oldest first, 20 at a time with "Show
 * more", and on each the actions, after a confirmation dialog. Each decision on a reported target
 * closes every open report of it (its reporters see the outcome in the app); held content is
 * approved or discarded.
 */
export function moderationSection(): HTMLElement {
  const refresh = h('button', { type: 'button', class: 'small' }, 'Refresh');
  const cell = (label: string, ...content: (Node | string)[]) => h('td', { 'data-label': label }, ...content);
  async function decide(entry: QueueEntry, choice: Choice, button: HTMLButtonElement): Promise<void> {
    const held = entry.kind === 'held' ? ' (held)' : '';
    const confirmed = await confirmAction({ title: `${choice.label}: ${entry.target.type}${held} ${entry.target.id}?`, message: choice.confirm(entry), confirmLabel: choice.label, danger: choice.danger });
    if (!confirmed) return;
    button.disabled = true;
    try {
      const target = entry.kind === 'held' ? { type: 'held' as const, id: entry.held_id } : entry.target;
      const result = await client.moderation.act({ target, action: choice.action });
      announce(
        entry.kind === 'held'
          ? `Held ${entry.target.type} ${choice.action === 'approve' ? 'approved' : 'discarded'}.`
          : `${entry.target.type} ${entry.target.id}: ${result.state}, ${result.reports} report${result.reports === 1 ? '' : 's'} closed.`,
        'success',
      );
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
    const author = cell('Author', e.author.nickname || '(deleted)', ' ', h('code', {}, e.author.openid));
    // The caller's own account or content: the server refuses their decision (403), a colleague decides.
    const decideCell = cell('Decide', e.own ? h('span', { class: 'muted' }, 'Yours: another moderator decides') : h('div', { class: 'actions' }, ...buttons));
    if (e.kind === 'held') {
      return h(
        'tr',
        { 'data-held': e.held_id, 'data-target': `held:${e.target.type}:${e.target.id}` },
        cell('Reported', `${e.target.type} `, h('code', {}, e.target.id)),
        cell('Content', h('span', { class: 'preview' }, e.fields.map((f) => e.text[f] ?? '').join(' / '))),
        author,
        cell('Reports', `held by the filter: ${e.fields.join(', ')}`, ...(e.removed ? [h('br', {}), `removed before as ${e.removed.vid} by ${e.removed.removed_by}, ${e.removed.removed_at}${e.removed.note ? `: ${e.removed.note}` : ''}`] : [])),
        cell('Waiting since', timeCell(e.held_at)),
        decideCell,
      );
    }
    return h(
      'tr',
      { 'data-target': `${e.target.type}:${e.target.id}` },
      cell('Reported', `${e.target.type} `, h('code', {}, e.target.id)),
      cell('Content', h('span', { class: 'preview' }, e.preview)),
      author,
      cell('Reports', `${e.report_count}: ${reasons(e.reasons)}`),
      cell('Waiting since', timeCell(e.oldest_report_at)),
      decideCell,
    );
  };
  const { slot, more, load } = pagedTable({
    fetch: (cursor) => client.moderation.queue({ limit: 20, ...(cursor ? { cursor } : {}) }),
    row,
    headings: ['Reported', 'Content', 'Author', 'Reports', 'Waiting since', 'Decide'],
    tableClass: 'moderation-table',
    loading: 'Loading reports…',
    empty: 'No open reports and nothing held.',
    more: 'Show more',
  });
  refresh.addEventListener('click', () => void load(true));
  void load(true);
  return h(
    'section',
    { class: 'card moderation', 'aria-labelledby': 'moderation-heading' },
    h('div', { class: 'section-head' }, h('h2', { id: 'moderation-heading' }, 'Moderation'), refresh),
    h('p', { class: 'muted' }, 'Reported videos, comments and users, and content the filter held, oldest first. The app stores expect a decision within 24 hours.'),
    slot,
    more,
  );
}

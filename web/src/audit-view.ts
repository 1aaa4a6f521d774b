import type { MeAuditData } from '../../client/src/index.js';
import { AUDIT_ACTIONS } from '../../lib/platform/audit/actions.js';
import { client } from './api.js';
import { h } from './dom.js';
import { pagedTable } from './paged-table.js';
import { timeCell } from './format.js';
import { session } from './session.js';

/** An event of `GET /api/v1/audit` (ids only, never a secret), as the API document types it. */
export type AuditEntry = MeAuditData['items'][number];

/** The labels of the actions (lib/platform/audit/actions.ts: one table for the trail, the document and this page). */
const LABELS: Record<AuditEntry['type'], string> = AUDIT_ACTIONS;

const roles = (list: string[] | undefined) => (list && list.length > 0 ? list.join(', ') : 'none');

/** What an event concerns, in words: the key (name and id), the roles before and after, the session. */
export function describeDetails(entry: AuditEntry): string {
  const d = entry.details ?? {};
  const parts: string[] = [];
  if (d.key_id !== undefined) parts.push(d.key_name ? `“${d.key_name}” (#${d.key_id})` : `key #${d.key_id}`);
  if (d.roles_before || d.roles_after) parts.push(`${roles(d.roles_before)} → ${roles(d.roles_after)}`);
  if (d.session_id) parts.push(`session ${d.session_id.slice(0, 8)}…`);
  if (d.terms_version) parts.push(`version ${d.terms_version}`);
  if (d.target_type && d.target_id) parts.push(`${d.target_type} ${d.target_id}`);
  return parts.join('; ');
}

/**
 * Who acted, in words and never as an internal id (docs/protected-api.md, "The account's audit trail"):
 * the API names the reader's own account by its openid, a sign-in as `sign-in` (a session ended by a
 * new sign-in, a role given at sign-in), and anyone else acting on the account is an administrator
 * (`administrator`; to a reader with the admin role, that administrator's openid or `admin-cli`).
 * The API gives no nickname with an event, so an administrator is not named.
 */
export function actorLabel(actor: string, reader: string | null): string {
  if (reader !== null && actor === reader) return 'you';
  if (actor === 'sign-in') return 'a sign-in';
  return 'an administrator';
}

/**
 * The account's activity (audit trail), newest first, 20 at a time with "Show older". A section of
 * its own, appended below the key views by main.ts.
 */
export function auditSection(): HTMLElement {
  const refresh = h('button', { type: 'button', class: 'small' }, 'Refresh');
  const reader = session.username();
  // Labelled cells: at phone width each event is a card of labelled fields (docs/web.md, "Accessibility").
  const cell = (label: string, ...content: (Node | string)[]) => h('td', { 'data-label': label }, ...content);
  const row = (e: AuditEntry) =>
    h(
      'tr',
      { 'data-type': e.type },
      cell('When', timeCell(e.at)),
      cell('What', LABELS[e.type] ?? e.type),
      cell('By', h('span', { 'data-field': 'actor' }, actorLabel(e.actor, reader))),
      cell('Details', describeDetails(e)),
    );
  const { slot, more, load } = pagedTable({
    fetch: (cursor) => client.me.audit({ limit: 20, ...(cursor ? { cursor } : {}) }),
    row,
    headings: ['When', 'What', 'By', 'Details'],
    tableClass: 'audit-table',
    loading: 'Loading activity…',
    empty: 'No activity in the last 90 days.',
    more: 'Show older',
  });
  refresh.addEventListener('click', () => void load(true));
  void load(true);
  return h(
    'section',
    { class: 'card audit', 'aria-labelledby': 'audit-heading' },
    h('div', { class: 'section-head' }, h('h2', { id: 'audit-heading' }, 'Activity'), refresh),
    h('p', { class: 'muted' }, 'Keys created, revoked and deleted, role changes, ended sessions and administrator actions on your account, kept 90 days.'),
    slot,
    more,
  );
}

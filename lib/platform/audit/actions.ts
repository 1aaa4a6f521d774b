/**
 * Every audit action, once: its name and its label on the account page (web/src/audit-view.ts). The
 * trail (lib/platform/audit/trail.ts), its log line (lib/platform/audit/log-line.ts) and the API document
 * (lib/platform/audit/audit-schema.ts) take their list of actions from here. Plain data, no imports: the page
 * bundles it.
 */
export const AUDIT_ACTIONS = {
  'key.created': 'Key created',
  'key.revoked': 'Key revoked',
  'key.deleted': 'Key deleted',
  'key.rate_limited': 'Key rate-limited',
  'role.changed': 'Roles changed',
  'session.ended': 'Session ended',
  'account.suspended': 'Account suspended',
  'account.reinstated': 'Account reinstated',
  'account.deletion_requested': 'Account deletion requested',
  'account.deleted': 'Account erased',
  'admin.keys_listed': 'Keys listed by an administrator',
  'admin.key_looked_up': 'Key looked up by an administrator',
  'terms.accepted': 'Terms accepted',
  'comment.removed': 'Comment removed by a moderator',
  'video.removed': 'Video removed by a moderator',
  'reports.dismissed': 'Reports dismissed',
  'reports.actioned': 'Reports actioned',
  'filter.terms_changed': 'Filter terms changed',
  'filter.held_approved': 'Held content approved by a moderator',
  'filter.held_discarded': 'Held content discarded by a moderator',
} as const;

export type AuditAction = keyof typeof AUDIT_ACTIONS;

/** The actions' names, in the table's order. */
export const AUDIT_ACTION_NAMES = Object.keys(AUDIT_ACTIONS) as [AuditAction, ...AuditAction[]];

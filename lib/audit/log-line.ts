import { LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { logger } from '../logger.js';

export type AuditAction =
  | 'key.created'
  | 'key.revoked'
  | 'key.deleted'
  | 'key.rate_limited'
  | 'role.changed'
  | 'session.ended'
  | 'account.suspended'
  | 'account.reinstated'
  | 'account.deletion_requested'
  | 'account.deleted'
  | 'admin.keys_listed'
  | 'admin.key_looked_up'
  | 'terms.accepted'
  | 'comment.removed'
  | 'video.removed'
  | 'reports.dismissed'
  | 'reports.actioned'
  | 'filter.terms_changed'
  | 'filter.held_approved'
  | 'filter.held_discarded';

/**
 * One audit fact. Identifiers only: never a key, a token, an SMS code or a phone number in full.
 */
export interface AuditEvent {
  action: AuditAction;
  /** Who acted: a user id, or the tool that acted (`admin-cli`, `sign-in`). */
  actor: string;
  /** The account affected (its user id / openid). */
  subject: string;
  /** The key concerned (its id, never the key). */
  key_id?: string;
  /** The key's name (chosen by its owner; not a credential). */
  key_name?: string;
  /** How the actor authenticated: `jwt`, `api_key`, or a tool. */
  via?: string;
  /** Role changes: the roles before and after. */
  roles_before?: string[];
  roles_after?: string[];
  /** Ended sessions: the token's id (jti), which is not a credential. */
  session_id?: string;
  /** Terms accepted: the version (docs/moderation.md, "Terms and contact"). */
  terms_version?: string;
  /** Moderation: the content or account acted on (docs/moderation.md, "Moderation"). */
  target_type?: string;
  target_id?: string;
  /** Filter term list changes: the list's version after the change (lib/filter/terms.ts). */
  filter_version?: number;
  /** Held content approved or discarded: the held item's id (lib/filter/held.ts). */
  held_id?: string;
}

/**
 * Writes one audit line (`message: "audit"`, the fact under `audit`), at INFO whatever LOG_LEVEL is
 * (LOG_LEVEL=WARN must not lose the audit trail), except SILENT, which writes nothing at all. Callers
 * write it once the change has been stored, and only when something changed. The stored trail (what
 * `GET /api/v1/audit` shows) is lib/audit/trail.ts, which writes this line too: call that `audit()`.
 */
export function writeAuditLine(event: AuditEvent): void {
  const level = logger.getLevelName();
  if (level === 'SILENT') return;
  if (logger.level <= LogLevelThreshold.INFO) {
    logger.info('audit', { audit: event });
    return;
  }
  // Lowered for this one line only (synchronous: nothing else logs in between), so that the line
  // keeps the invocation's context and keys.
  logger.setLogLevel('INFO');
  try {
    logger.info('audit', { audit: event });
  } finally {
    logger.setLogLevel(level);
  }
}

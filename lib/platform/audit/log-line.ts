import { LogLevelThreshold } from '@aws-lambda-powertools/logger';
import { logger } from '../logger.js';

import type { AuditAction } from './actions.js';
import type { AuditDetails } from './audit-schema.js';

export type { AuditAction };

/**
 * One audit fact (its action, lib/platform/audit/actions.ts; its details, lib/platform/audit/audit-schema.ts).
 * Identifiers only: never a key, a token, an SMS code or a phone number in full.
 */
export type AuditEvent = Omit<AuditDetails, 'key_id'> & {
  action: AuditAction;
  /** Who acted: a user id, or the tool that acted (`admin-cli`, `sign-in`). */
  actor: string;
  /** The account affected (its user id / openid). */
  subject: string;
  /** The key concerned (its id, never the key; a number in the stored details). */
  key_id?: string;
};

/**
 * Writes one audit line (`message: "audit"`, the fact under `audit`), at INFO whatever LOG_LEVEL is
 * (LOG_LEVEL=WARN must not lose the audit trail), except SILENT, which writes nothing at all. Callers
 * write it once the change has been stored, and only when something changed. The stored trail (what
 * `GET /api/v1/audit` shows) is lib/platform/audit/trail.ts, which writes this line too: call that `audit()`.
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

import * as z from '../zod.js';
import { AUDIT_ACTION_NAMES } from './actions.js';

/**
 * The shape of a stored audit event, once: `GET /api/v1/audit` and the data export document it
 * (lib/transport/routes/list-audit.ts, lib/features/personal-data/data-export-api.ts), the trail and its log line take
 * their types from it (lib/platform/audit/trail.ts, lib/platform/audit/log-line.ts).
 */

/** An event's details: identifiers only, never a credential. */
export const auditDetails = z.object({
  via: z.optional(z.string()),
  key_id: z.optional(z.number()),
  key_name: z.optional(z.string()),
  roles_before: z.optional(z.array(z.string())),
  roles_after: z.optional(z.array(z.string())),
  session_id: z.optional(z.string()),
  terms_version: z.optional(z.string()),
  target_type: z.optional(z.string()),
  target_id: z.optional(z.string()),
  filter_version: z.optional(z.number()),
  held_id: z.optional(z.string()),
});
export type AuditDetails = z.output<typeof auditDetails>;

/** The details' names, as the trail copies them from an event (nothing else can slip in). */
export const AUDIT_DETAIL_FIELDS = Object.keys(auditDetails.shape) as (keyof AuditDetails)[];

/** An event as `GET /api/v1/audit` shows it. */
export const auditEntry = z.object({
  id: z.string(),
  at: z.string(),
  type: z.enum(AUDIT_ACTION_NAMES),
  actor: z.string(),
  details: auditDetails,
});
export type AuditEntry = z.output<typeof auditEntry>;

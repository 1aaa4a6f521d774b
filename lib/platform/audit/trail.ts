import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { clock } from '../clock.js';
import { db, tableNames } from '../db/client.js';
import { retryTransient } from '../db/failures.js';
import { cancellationCode, transactWrite, type TransactItem } from '../db/transact.js';
import { randomBase62 } from '../ids.js';
import { writeAuditLine, type AuditAction, type AuditEvent } from './log-line.js';
import { timeKey } from '../db/keys.js';
import { AUDIT_DETAIL_FIELDS, type AuditDetails, type AuditEntry } from './audit-schema.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const auditKeys = {
  /** The partition of an account's events: its own (they sort after its profile, before nothing else of it). */
  partition: (openid: string) => `ACCOUNT#${openid}`,
  /**
   * One stored audit event of an account (lib/platform/audit/trail.ts), kept 90 days (TTL): under the
   * account's partition, time-ordered, so `GET /api/v1/audit` is one Query, newest first.
   */
  auditEvent: (openid: string, atIso: string, id: string) => ({ pk: `ACCOUNT#${openid}`, sk: `AUDIT#${timeKey(atIso, id)}` }),
  auditPrefix: 'AUDIT#',
  /** An event id given by its writer (lib/platform/audit/trail.ts, audit()): stored once per id, with the event's TTL. */
  auditEventId: (openid: string, id: string) => ({ pk: `ACCOUNT#${openid}`, sk: `AUDITID#${id}` }),
};


export type { AuditAction, AuditEvent };

/** How long an account's events are kept (DynamoDB TTL on the hub table's `ttl`). */
const AUDIT_RETENTION_DAYS = 90;

export type { AuditEntry, AuditDetails };

/** The details of an event: the identifiers audit-schema.ts lists, copied one by one (nothing else can slip in). */
function detailsOf(event: AuditEvent): AuditDetails {
  const details: Record<string, unknown> = {};
  for (const field of AUDIT_DETAIL_FIELDS) {
    const value = event[field];
    if (value !== undefined) details[field] = field === 'key_id' ? Number(value) : value;
  }
  return details as AuditDetails;
}

/** The stored item of an event of `event.subject`'s account. `id` defaults to a fresh random id. */
function eventItem(event: AuditEvent, atMs: number, id: string): Record<string, unknown> {
  const at = new Date(atMs).toISOString();
  return {
    ...auditKeys.auditEvent(event.subject, at, id),
    entity: 'audit_event',
    id,
    at,
    type: event.action,
    actor: event.actor,
    details: detailsOf(event),
    ttl: Math.floor(atMs / 1000) + AUDIT_RETENTION_DAYS * 86_400,
  };
}

const newEventId = () => `ev_${randomBase62(16)}`;

/**
 * The event as an item of the transaction that makes the change it records: stored together with
 * the change or not at all. Call `writeAuditLine(event)` once the transaction succeeded.
 */
export function auditItem(event: AuditEvent, atMs = clock.now()): TransactItem {
  return { Put: { TableName: tableNames.hub, Item: eventItem(event, atMs, newEventId()), ConditionExpression: 'attribute_not_exists(pk)' } };
}

export { writeAuditLine };

/**
 * Records an event that has no transaction of its own to join (a read-only admin action, a key
 * first rate-limited in a window): the stored event (one Put, or with `id` one transaction), then
 * the audit line, as after a transaction: a failed store (503, retried by the client) leaves no
 * line, and a repeat with the same `id` none either. `id` makes a repeated call store the fact
 * once: pass one derived from what happened (e.g. `rl_<key id>_<window>`) where the call can be
 * repeated for the same fact.
 */
export async function audit(event: AuditEvent, options: { id?: string } = {}): Promise<void> {
  const atMs = clock.now();
  const item = eventItem(event, atMs, options.id ?? newEventId());
  if (options.id === undefined) {
    // The same item each try: a retried Put that had been applied rewrites it, never a second event.
    await retryTransient(() => db.send(new PutCommand({ TableName: tableNames.hub, Item: item })));
    writeAuditLine(event);
    return;
  }
  // A given id: a marker of the id (the event's sort key holds its time, which a retry does not
  // repeat) is written with the event, once: a second call with the id finds it and stores nothing.
  const marker = { ...auditKeys.auditEventId(event.subject, options.id), entity: 'audit_event_id', ttl: item.ttl };
  const stored = await retryTransient(() =>
    transactWrite([
      { Put: { TableName: tableNames.hub, Item: marker, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { TableName: tableNames.hub, Item: item } },
    ]),
  ).then(
    () => true,
    (error: unknown) => {
      if (cancellationCode(error, 0) !== 'ConditionalCheckFailed') throw error;
      return false;
    },
  );
  if (stored) writeAuditLine(event);
}

import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from '../zod.js';
import type { AuditEntry } from './trail.js';
import { openCursor, signCursor } from '../secrets/signed-cursor.js';
import { db, tableNames } from '../db/client.js';
import { auditKeys } from './trail.js';
import { ValidationError } from '../errors.js';

const AUDIT_PAGE_DEFAULT = 20;
export const AUDIT_PAGE_MAX = 100;
const CURSOR_PURPOSE = 'audit';

const limitSchema = z.pipe(z.string().check(z.regex(/^[0-9]{1,3}$/, 'must be an integer from 1 to 100')), z.transform(Number));

interface AuditCursor {
  u: string;
  sk: string;
}

/** What the subject of an administrator's action sees as its actor (docs/protected-api.md, "The account's audit trail"). */
const ADMINISTRATOR = 'administrator';

/**
 * The actor as the account's own trail shows it: the account itself and `sign-in` as stored; a sign-in
 * on the device that ended this session as `sign-in`; anyone else acting on the account is an
 * administrator (its openid, or `admin-cli`), named only to a reader who holds the admin role. The
 * stored event and the audit log line keep the actor for investigation.
 */
function shownActor(entry: Pick<AuditEntry, 'actor' | 'type' | 'details'>, reader: { openid: string; admin: boolean }): string {
  if (entry.actor === reader.openid || entry.actor === 'sign-in' || reader.admin) return entry.actor;
  if (entry.type === 'session.ended' && entry.details?.via === 'sms_code') return 'sign-in';
  return ADMINISTRATOR;
}

/** A stored event as the account's own reader sees it (the trail and the account's data export). */
export function shownEntry(stored: AuditEntry, reader: { user_id: string; roles: readonly string[] }): AuditEntry {
  const { id, at, type, actor, details } = stored;
  return { id, at, type, actor: shownActor({ actor, type, details }, { openid: reader.user_id, admin: reader.roles.includes('admin') }), details: details ?? {} };
}

/** `GET /api/v1/audit?cursor=&limit=`: the account's events, newest first, one Query per page. */
export async function auditPage(reader: { user_id: string; roles: readonly string[] }, query: { cursor?: string; limit?: string }): Promise<{ items: AuditEntry[]; next_cursor: string | null }> {
  const openid = reader.user_id;
  let limit = AUDIT_PAGE_DEFAULT;
  if (query.limit !== undefined && query.limit !== '') {
    const parsed = limitSchema.safeParse(query.limit);
    if (!parsed.success || parsed.data < 1 || parsed.data > AUDIT_PAGE_MAX) {
      throw new ValidationError(`Invalid parameter "limit": must be an integer from 1 to ${AUDIT_PAGE_MAX}`);
    }
    limit = parsed.data;
  }
  let startKey: Record<string, unknown> | undefined;
  if (query.cursor) {
    const opened = (await openCursor(CURSOR_PURPOSE, query.cursor)) as Partial<AuditCursor> | undefined;
    // A cursor of another account continues nothing of this one.
    if (!opened || opened.u !== openid || typeof opened.sk !== 'string' || !opened.sk.startsWith(auditKeys.auditPrefix)) {
      throw new ValidationError('Invalid parameter "cursor": not a cursor this server issued for this list');
    }
    startKey = { pk: auditKeys.partition(openid), sk: opened.sk };
  }
  const out = await db.send(
    new QueryCommand({
      TableName: tableNames.hub,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': auditKeys.partition(openid), ':prefix': auditKeys.auditPrefix },
      ScanIndexForward: false,
      // One more than the page: a cursor only when there is more, never one that leads to an empty page.
      Limit: limit + 1,
      ExclusiveStartKey: startKey,
    }),
  );
  const rows = ((out.Items ?? []) as (AuditEntry & { sk: string })[]).slice(0, limit + 1);
  const page = rows.slice(0, limit);
  const items = page.map((stored) => shownEntry(stored, reader));
  const next_cursor = rows.length > limit ? await signCursor(CURSOR_PURPOSE, { u: openid, sk: page[page.length - 1]!.sk } satisfies AuditCursor) : null;
  return { items, next_cursor };
}

import { itemParser } from '../../platform/db/item-check.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import { clock } from '../../platform/clock.js';
import { db, tableNames } from '../../platform/db/client.js';
import { cancellationCode, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { NotFoundError } from '../../platform/errors.js';
import { randomBase62 } from '../../platform/ids.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { markKeysSuspended, suspensionMarkItems } from '../keys/suspension-marks.js';
import { countMetric } from '../../platform/observability/metrics.js';
import { deletionRequestUpdate, getAccount, isDeleted, phoneLinkRelease } from '../../entities/accounts/accounts.js';

/**
 * Account deletion (docs/accounts.md, "Delete my account"): the request, which takes effect at once,
 * and the deletion record that the background erasure (erasure.ts) works through and that
 * `GET /api/v1/deletions/{id}` reports.
 */

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const deletionKeys = {
  /** The deletion record: what was asked, by whom, and how far the erasure has come. */
  deletion: (id: string) => ({ pk: `DELETION#${id}`, sk: 'DELETION' }),
  /** gsi1 of a deletion still erasing: the sweeper's list of unfinished erasures, oldest first. */
  pendingIndex: (requestedAt: string, id: string) => ({ gsi1pk: 'DELETIONS#erasing', gsi1sk: `${requestedAt}#${id}` }),
  pendingPartition: 'DELETIONS#erasing',
};

/** The id of the deletion record whose pk is `pk`. */
export const deletionIdOf = (pk: string): string => pk.slice(deletionKeys.deletion('').pk.length);

export type DeletionState = 'erasing' | 'erased';

/** The stored deletion record (entity `account_deletion`). No personal data: the openid is a random id. */
export interface StoredDeletion {
  id: string;
  openid: string;
  state: DeletionState;
  requested_at: string;
  /** `self`, or the administrator's openid. */
  requested_by: string;
  /** How it was asked: `hub`, `rest`, `page`, `admin`, `admin-cli`. */
  via: string;
  /** The inviter of the account, whose invitation record of it the erasure removes. */
  invited_by?: string;
  /** The erasure's step and its position in it (erasure.ts). */
  step: string;
  position?: Record<string, unknown>;
  /** What the erasure removed so far, by kind. */
  erased: Record<string, number>;
  /** Compare-and-set version: one erasure run at a time moves it on. */
  v: number;
  /** Raised by the sweeper to hand a stalled erasure to the stream again. */
  kick?: number;
  updated_at: string;
  completed_at?: string;
  ttl?: number;
}

/** A deletion in answers (docs/accounts.md): no personal data. */
export const deletionView = z.object({
  id: z.string(),
  state: z.enum(['erasing', 'erased']),
  requested_at: z.string(),
  completed_at: z.union([z.string(), z.null()]),
  status_url: z.string(),
  /** What it means, in words a client can show (docs/accounts.md). */
  message: z.string(),
});
export type DeletionView = z.output<typeof deletionView>;

/** The deletion's meaning for the person, in every answer about it. */
export const DELETION_MESSAGE =
  'The account is deleted: its sessions and access keys no longer work, and what is not kept is being erased. Signing in again with the same phone number creates a new, empty account.';

export const toDeletionView = (d: Pick<StoredDeletion, 'id' | 'state' | 'requested_at' | 'completed_at'>): DeletionView => ({
  id: d.id,
  state: d.state,
  requested_at: d.requested_at,
  completed_at: d.completed_at ?? null,
  status_url: `/api/v1/deletions/${d.id}`,
  message: DELETION_MESSAGE,
});

/** The confirmation word (docs/accounts.md): a deletion is never one accidental call. */
const CONFIRM_WORD = 'delete';

/** The `confirm` parameter of every way to delete (the hub's query, the REST routes' query and their OpenAPI description). */
export const confirmParam = documentAs(
  z.string({ error: `is required: "${CONFIRM_WORD}"` }).check(z.trim(), z.refine((v) => v === CONFIRM_WORD, `must be "${CONFIRM_WORD}" to delete the account`)),
  { type: 'string', enum: [CONFIRM_WORD] },
);

/** The REST routes' query (lib/transport/routes/delete-account.ts, admin-delete-account.ts): 400 naming `confirm` unless it is the word. */
export const confirmQuery = z.object({ confirm: confirmParam });

/** The checked parse of a deletion record. */
const deletionFromItem = itemParser<StoredDeletion>('deletion', {
  entity: 'account_deletion',
  required: { id: 'string', openid: 'string', state: 'string', requested_at: 'string', step: 'string', erased: 'map', v: 'number' },
  optional: { invited_by: 'string', position: 'map' },
});

export async function getDeletion(id: string, consistent = true): Promise<StoredDeletion | undefined> {
  const out = await db.send(new GetCommand({ TableName: tableNames.hub, Key: deletionKeys.deletion(id), ConsistentRead: consistent }));
  return deletionFromItem(out.Item);
}

/** `GET /api/v1/deletions/{id}`: the deletion's state; 404 for an id that is not one. */
export async function deletionStatus(rawId: string | undefined): Promise<{ deletion: DeletionView }> {
  const id = (rawId ?? '').trim();
  const deletion = /^del_[A-Za-z0-9]{22}$/.test(id) ? await getDeletion(id, false) : undefined;
  if (!deletion) throw new NotFoundError('No such deletion');
  return { deletion: toDeletionView(deletion) };
}

/** Items besides the account, the phone link, the record and its event: at most 100 in a transaction. */
const ROOM_FOR_KEY_MARKS = 100 - 4;

export interface DeletionRequest {
  openid: string;
  /** `self` or the administrator's openid. */
  actor: string;
  via: string;
}

/**
 * Deletes an account: from this transaction on, the account's sessions are refused (the JWT check
 * reads `deleted_at` on the account item) and its keys too (the suspension mark on every hash guard,
 * in the same transaction while the keys fit in it, else right after); its phone is free (a new
 * sign-in creates a new, empty account); its profile is out of every list and export (the account
 * index entry goes, readers skip deleted accounts). The rest is erased in the background
 * (erasure.ts), driven by the deletion record this writes. A deletion asked again (an administrator
 * repeating it, a retried request) answers the deletion already under way.
 */
export async function requestDeletion(request: DeletionRequest): Promise<{ deletion: DeletionView; created: boolean }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const account = await getAccount(request.openid, true);
    if (!account) throw new NotFoundError(`User "${request.openid.slice(0, 64)}" does not exist`);
    if (isDeleted(account)) {
      const existing = account.deletion_id ? await getDeletion(account.deletion_id) : undefined;
      if (!existing) throw new NotFoundError(`User "${request.openid.slice(0, 64)}" does not exist`);
      return { deletion: toDeletionView(existing), created: false };
    }
    const now = clock.now();
    const nowIso = new Date(now).toISOString();
    const id = `del_${randomBase62(22)}`;
    const deletion: StoredDeletion = {
      id,
      openid: account.openid,
      state: 'erasing',
      requested_at: nowIso,
      requested_by: request.actor,
      via: request.via,
      ...(account.invited_by ? { invited_by: account.invited_by } : {}),
      step: 'partition',
      erased: {},
      v: 0,
      updated_at: nowIso,
    };
    const event: AuditEvent = { action: 'account.deletion_requested', actor: request.actor, subject: account.openid, via: request.via };
    const marks = await suspensionMarkItems(account.openid, true, ROOM_FOR_KEY_MARKS);
    const items: TransactItem[] = [
      // Out of the accounts export at once (its index keys go); the profile's text is erased now.
      deletionRequestUpdate(account.openid, id, nowIso),
      phoneLinkRelease(account.phone, account.openid),
      {
        Put: {
          TableName: tableNames.hub,
          Item: { ...deletionKeys.deletion(id), ...deletionKeys.pendingIndex(nowIso, id), entity: 'account_deletion', ...deletion },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      auditItem(event, now),
      ...(marks ?? []),
    ];
    try {
      await transactWrite(items);
    } catch (error) {
      // Deleted meanwhile (another request won): answer that deletion.
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') continue;
      // The keys changed since they were listed: list them again.
      if (marks && marks.some((_, i) => cancellationCode(error, i + 4) === 'ConditionalCheckFailed')) continue;
      throw error;
    }
    writeAuditLine(event);
    countMetric('AccountDeletions', 'requested');
    // More keys than one transaction holds: marked right after (each is also refused once erased).
    if (!marks) await markKeysSuspended(account.openid, true);
    return { deletion: toDeletionView(deletion), created: true };
  }
  throw Object.assign(new Error('account deletion: the account kept changing'), { name: 'TransactionConflictException' });
}

import type * as z from '../../platform/zod.js';
import type { Principal } from '../auth/principal.js';
import type { accountRow as accountRowSchema, commentRow as commentRowSchema } from './export-api.js';
import { accountPartitions } from '../../entities/accounts/accounts.js';
import { commentKeys, commentPartitions } from '../../entities/comments/comments.js';
import { followPartitions } from '../../entities/social/follows.js';
import { getAccount, type Account } from '../../entities/accounts/accounts.js';
import { maskPhone } from '../../platform/sms/phone.js';
import type { IndexSpec } from './paging.js';
import { storedCount } from '../../platform/db/attributes.js';

/**
 * The one place that decides what an export shows to whom (docs/protected-api.md, "paged exports":
 * a key inherits its user's row- and column-level visibility). The same rules apply whether the
 * request came with a JWT or an access key: both are decided from the account's STORED roles, read
 * at request time, never from the request-context roles (a key has none).
 */
export interface ExportViewer {
  openid: string;
  admin: boolean;
  /** The caller's own account item (read for its roles), if it exists. */
  account: Account | undefined;
}

export async function exportViewer(principal: Principal): Promise<ExportViewer> {
  const account = await getAccount(principal.user_id, true);
  return { openid: principal.user_id, admin: (account?.roles ?? []).includes('admin'), account };
}

// Rows ------------------------------------------------------------------------------------------

/** Comments: an admin pages through every comment, anyone else through their own. */
export function commentRows(viewer: ExportViewer): IndexSpec {
  return viewer.admin
    ? { indexName: 'gsi2', partitionName: 'gsi2pk', sortName: 'gsi2sk', partitions: commentPartitions.comments }
    : { indexName: 'gsi1', partitionName: 'gsi1pk', sortName: 'gsi1sk', partitions: [commentKeys.commentsByAuthorIndex(viewer.openid, '', '').gsi1pk] };
}

/**
 * Accounts: an admin pages through every account; anyone else sees their own account first, then
 * the accounts they follow (in the order they followed them).
 */
export type AccountRows = { kind: 'all'; index: IndexSpec } | { kind: 'own-and-followed'; own: string; following: IndexSpec };

export function accountRows(viewer: ExportViewer): AccountRows {
  if (viewer.admin) {
    return { kind: 'all', index: { indexName: 'gsi1', partitionName: 'gsi1pk', sortName: 'gsi1sk', partitions: accountPartitions.accounts } };
  }
  return {
    kind: 'own-and-followed',
    own: viewer.openid,
    following: { indexName: 'gsi1', partitionName: 'gsi1pk', sortName: 'gsi1sk', partitions: [followPartitions.following(viewer.openid)] },
  };
}

// Columns ---------------------------------------------------------------------------------------

/** An account row of the export (its schema: lib/features/export/export-api.ts). */
export type AccountRow = z.output<typeof accountRowSchema>;

/** A comment row is the hub's own comment shape: comments are public (comment_get). */
export type CommentRow = z.output<typeof commentRowSchema>;


/**
 * The phone in full only for an admin or the row's owner, masked (`+86 138****8000`) otherwise; the
 * roles only for an admin or the row's owner, left out otherwise
 * (docs/protected-api.md, "paged exports").
 */
export function accountRow(viewer: ExportViewer, account: Account): AccountRow {
  const privileged = viewer.admin || viewer.openid === account.openid;
  return {
    openid: account.openid,
    nickname: account.nickname ?? '',
    signature: account.signature ?? '',
    city: account.city ?? '',
    phone: account.phone ? (privileged ? account.phone : maskPhone(account.phone)) : '',
    ...(privileged ? { roles: account.roles ?? [] } : {}),
    created_at: account.created_at,
    follow_count: storedCount(account.follow_count),
    follower_count: storedCount(account.follower_count),
  };
}

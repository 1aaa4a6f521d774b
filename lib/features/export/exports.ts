import type { Principal } from '../auth/principal.js';
import { accountKeys } from '../../entities/accounts/accounts.js';
import { getAccounts, type Account } from '../../entities/accounts/accounts.js';
import { commentViews, type StoredComment } from '../../entities/comments/comments.js';
import { encodeCursor, expectKey, parsePageQuery, queryPage, type ExportList, type PageKey, type PageQuery } from './paging.js';
import { accountRow, accountRows, commentRows, exportViewer, type AccountRow, type CommentRow } from './visibility.js';

export interface ExportPage<T> {
  items: T[];
  /** Opaque; null at the end. */
  next_cursor: string | null;
}

const page = async <T>(list: ExportList, items: T[], next: PageKey | undefined): Promise<ExportPage<T>> => ({ items, next_cursor: next ? await encodeCursor(list, next) : null });

/**
 * `GET /api/v1/export/comments`: oldest first; a page is one Query (an admin's: one per shard of
 * all comments, in parallel) plus one BatchGet of the authors' nicknames. The index holds the comments whole.
 */
export async function exportComments(principal: Principal, query: PageQuery): Promise<ExportPage<CommentRow>> {
  const request = await parsePageQuery(query, 'export:comments');
  const viewer = await exportViewer(principal);
  const index = commentRows(viewer);
  const after = request.after && expectKey(request.after, index);
  const { rows, next } = await queryPage<StoredComment & Record<string, unknown>>(index, request.limit, after, request.since);
  return page('export:comments', await commentViews(rows), next);
}

/**
 * `GET /api/v1/export/accounts`. An admin pages through the accounts index (one Query per shard, in
 * parallel) and reads the page's accounts with one BatchGet: the index holds no counters. Anyone else
 * gets their own account as the first row (its cursor is the account's key), then the accounts they follow.
 */
export async function exportAccounts(principal: Principal, query: PageQuery): Promise<ExportPage<AccountRow>> {
  const request = await parsePageQuery(query, 'export:accounts');
  const viewer = await exportViewer(principal);
  const rows = accountRows(viewer);

  if (rows.kind === 'all') {
    const after = request.after && expectKey(request.after, rows.index);
    const result = await queryPage<{ openid: string } & Record<string, unknown>>(rows.index, request.limit, after, request.since);
    const accounts = await getAccounts(result.rows.map((r) => r.openid));
    const found = result.rows.map((r) => accounts.get(r.openid)).filter((a): a is Account => !!a);
    return page(
      'export:accounts',
      found.map((a) => accountRow(viewer, a)),
      result.next,
    );
  }

  const createdSince = (account: Account) => request.since === undefined || account.created_at >= request.since;
  const ownKey = accountKeys.account(rows.own);
  const items: AccountRow[] = [];
  let followingAfter: PageKey | undefined;
  let limit = request.limit;
  if (!request.after) {
    // With `since`, the own account is a row only when it was created from then on.
    if (viewer.account && createdSince(viewer.account)) {
      items.push(accountRow(viewer, viewer.account));
      limit -= 1;
      if (limit === 0) return page('export:accounts', items, ownKey);
    }
  } else if (request.after.pk === ownKey.pk && request.after.sk === ownKey.sk && Object.keys(request.after).length === 2) {
    followingAfter = undefined; // the page after the own account: followed accounts from the start
  } else {
    followingAfter = expectKey(request.after, rows.following);
  }
  // The follow list is ordered by relation number, not time: `since` filters its accounts by their
  // creation (the admin's list has it as a key condition), so such a page may hold fewer rows.
  const relations = await queryPage<{ followee: string } & Record<string, unknown>>(rows.following, limit, followingAfter);
  const followed = await getAccounts(relations.rows.map((r) => r.followee));
  for (const relation of relations.rows) {
    const account = followed.get(relation.followee);
    if (account && createdSince(account)) items.push(accountRow(viewer, account));
  }
  return page('export:accounts', items, relations.next);
}

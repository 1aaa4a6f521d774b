import * as z from '../../platform/zod.js';
import type { Principal } from '../auth/principal.js';
import { DELETION_MESSAGE, deletionStatus, deletionView, requestDeletion, type DeletionView } from './deletion.js';

/** The deletion routes' use cases (docs/accounts.md) and what they answer, for the OpenAPI document (lib/transport/routes/delete-account.ts, admin-delete-account.ts, deletion-status.ts). */

export const deletionData = z.object({ deletion: deletionView });

export const exampleDeletion: DeletionView = {
  id: 'del_4Qm9T2xV7bK1nR8cW3yZ5d',
  state: 'erasing',
  requested_at: '2026-01-07T10:00:00.000Z',
  completed_at: null,
  status_url: '/api/v1/deletions/del_4Qm9T2xV7bK1nR8cW3yZ5d',
  message: DELETION_MESSAGE,
};

/** What a deletion does, in the description of both deletion routes. */
export const whatHappens =
  'From this answer on every session and access key of the account is refused (401), its profile is in no list or export, and its phone number signs in to a new, empty account. ' +
  'The erasure of the rest runs in the background; `status_url` reports it. What is erased and what is kept: docs/accounts.md.';

/** `DELETE /api/v1/me?confirm=delete` (the route admits login tokens only; its query schema checks the word). */
export async function deleteOwnAccount(principal: Principal): Promise<{ deletion: DeletionView }> {
  return { deletion: (await requestDeletion({ openid: principal.user_id, actor: 'self', via: 'rest' })).deletion };
}

/** The hub's `delete_account` (declared login-token only: lib/transport/hub/delete-account.ts). */
export async function deleteAccountFromHub(principal: Principal): Promise<{ deletion: DeletionView }> {
  return { deletion: (await requestDeletion({ openid: principal.user_id, actor: 'self', via: 'hub' })).deletion };
}

/** `DELETE /api/v1/admin/users/{openid}?confirm=delete`. */
export async function adminDeleteAccount(principal: Principal, openid: string): Promise<{ deletion: DeletionView }> {
  return { deletion: (await requestDeletion({ openid, actor: principal.user_id, via: 'admin' })).deletion };
}

export { deletionStatus };

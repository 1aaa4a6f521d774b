import * as z from '../../platform/zod.js';
import { defineRouteDoc, type Same } from '../../platform/api-doc.js';
import type { Principal } from '../auth/principal.js';
import { ValidationError } from '../../platform/errors.js';
import { openidSchema } from '../admin/set-roles.js';
import { confirmParam, DELETION_MESSAGE, deletionStatus, requestDeletion, requireConfirmation, type DeletionView } from './deletion.js';

/** The deletion routes (docs/accounts.md) and their descriptions in the OpenAPI document (lib/platform/api-doc.ts). */

const deletionView = z.object({
  id: z.string(),
  state: z.enum(['erasing', 'erased']),
  requested_at: z.string(),
  completed_at: z.union([z.string(), z.null()]),
  status_url: z.string(),
  message: z.string(),
});
const deletionMatches: Same<z.output<typeof deletionView>, DeletionView> = true;
void deletionMatches;
export const deletionData = z.object({ deletion: deletionView });

const confirmQuery = z.object({ confirm: confirmParam });
export const exampleDeletion: DeletionView = {
  id: 'del_4Qm9T2xV7bK1nR8cW3yZ5d',
  state: 'erasing',
  requested_at: '2026-01-07T10:00:00.000Z',
  completed_at: null,
  status_url: '/api/v1/deletions/del_4Qm9T2xV7bK1nR8cW3yZ5d',
  message: DELETION_MESSAGE,
};

const whatHappens =
  'From this answer on every session and access key of the account is refused (401), its profile is in no list or export, and its phone number signs in to a new, empty account. ' +
  'The erasure of the rest runs in the background; `status_url` reports it. What is erased and what is kept: docs/accounts.md.';

export const deleteOwnAccountDoc = defineRouteDoc({
  tag: 'Protected',
  summary: 'Delete my account',
  description: `Needs the login token (an access key is 401: a key can never delete its owner). \`confirm=delete\` is required. ${whatHappens}`,
  query: confirmQuery,
  success: { status: 202, kind: 'json', data: deletionData },
  errors: [401],
  examples: [{ summary: 'Delete the signed-in account', query: { confirm: 'delete' }, data: { deletion: exampleDeletion } }],
});

export const adminDeleteAccountDoc = defineRouteDoc({
  tag: 'Administration',
  summary: 'Delete an account (at its owner\'s written request, or after a moderation decision)',
  description: `Needs an admin login token; an access key is 403. \`confirm=delete\` is required. Asking again answers the deletion already under way. ${whatHappens}`,
  pathParams: z.object({ openid: openidSchema }),
  query: confirmQuery,
  success: { status: 202, kind: 'json', data: deletionData },
  errors: [401, 403, 404],
  examples: [{ summary: 'Delete an account', path: { openid: 'u_9f2c4e1a7b' }, query: { confirm: 'delete' }, data: { deletion: exampleDeletion } }],
});

export const deletionStatusDoc = defineRouteDoc({
  tag: 'Service',
  summary: "A deletion's progress",
  description:
    'No credential: the deleted account\'s own are refused from the deletion on, and the id (in the answer that deleted it) is unguessable. `erasing` until everything but the retained records is gone, then `erased` with `completed_at`.',
  pathParams: z.object({ id: z.string() }),
  success: { status: 200, kind: 'json', data: deletionData },
  errors: [404],
  examples: [{ summary: 'An erasure that ended', path: { id: exampleDeletion.id }, data: { deletion: { ...exampleDeletion, state: 'erased', completed_at: '2026-01-07T10:00:41.000Z' } } }],
});

/** `DELETE /api/v1/me?confirm=delete` (the route admits login tokens only). */
export async function deleteOwnAccount(principal: Principal, query: Record<string, string>): Promise<{ deletion: DeletionView }> {
  requireConfirmation(query.confirm);
  return { deletion: (await requestDeletion({ openid: principal.user_id, actor: 'self', via: 'rest' })).deletion };
}

/** The hub's `delete_account` (declared login-token only: lib/transport/hub/delete-account.ts). */
export async function deleteAccountFromHub(principal: Principal): Promise<{ deletion: DeletionView }> {
  return { deletion: (await requestDeletion({ openid: principal.user_id, actor: 'self', via: 'hub' })).deletion };
}

/** `DELETE /api/v1/admin/users/{openid}?confirm=delete`. */
export async function adminDeleteAccount(principal: Principal, rawOpenid: string | undefined, query: Record<string, string>): Promise<{ deletion: DeletionView }> {
  const openid = openidSchema.safeParse(rawOpenid ?? '');
  if (!openid.success) throw new ValidationError(`Invalid parameter "openid": ${openid.error.issues[0]?.message}`);
  requireConfirmation(query.confirm);
  return { deletion: (await requestDeletion({ openid: openid.data, actor: principal.user_id, via: 'admin' })).deletion };
}

export { deletionStatus };

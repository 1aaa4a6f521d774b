import * as z from '../../platform/zod.js';
import { defineOperation } from './operation.js';
import { identifier } from './params.js';
import { deleteAccountFromHub } from '../../features/deletion/deletion-api.js';
import { confirmParam } from '../../features/deletion/deletion.js';
import { deletionData, exampleDeletion } from '../../features/deletion/deletion-api.js';
import { signedIn } from './examples.js';

/** delete_account: `confirm=delete`; a login token only (403 for an access key); `data: {deletion}` (docs/accounts.md). */
export const deleteAccount = defineOperation({
  name: 'delete_account',
  summary: 'Delete my account (confirm=delete; a login token only): refused everywhere at once, erased in the background (docs/accounts.md)',
  auth: 'required',
  scope: 'hub:write',
  // A key can never delete its owner (docs/accounts.md).
  loginTokenOnly: true,
  query: z.object({
    openid: identifier(),
    confirm: confirmParam,
  }),
  data: deletionData,
  examples: [{ summary: 'Delete the account', query: { ...signedIn, confirm: 'delete' }, data: { deletion: exampleDeletion } }],
  run: async (_input, { principal }) => deleteAccountFromHub(principal!),
});

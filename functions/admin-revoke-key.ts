import { adminRevokeKey } from '../lib/admin/admin-keys.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('adminRevokeKey', async ({ principal, path }) => ({ data: await adminRevokeKey(principal!, path.id) }));

import { adminRevokeKey } from '../lib/features/admin/admin-keys.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('adminRevokeKey', async ({ principal, path }) => ({ data: await adminRevokeKey(principal!, path.id) }));

import { listUserKeys } from '../lib/features/admin/admin-keys.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('adminListKeys', async ({ principal, path }) => ({ data: await listUserKeys(principal!, path.openid) }));

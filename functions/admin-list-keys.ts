import { listUserKeys } from '../lib/admin/admin-keys.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('adminListKeys', async ({ principal, path }) => ({ data: await listUserKeys(principal!, path.openid) }));

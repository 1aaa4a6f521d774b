import { suspendAccount } from '../lib/admin/suspension.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('suspendAccount', async ({ principal, path }) => ({ data: await suspendAccount(principal!, path.openid) }));

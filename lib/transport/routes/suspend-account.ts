import { suspendAccount } from '../lib/features/admin/suspension.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('suspendAccount', async ({ principal, path }) => ({ data: await suspendAccount(principal!, path.openid) }));

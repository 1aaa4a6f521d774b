import { reinstateAccount } from '../lib/admin/suspension.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('reinstateAccount', async ({ principal, path }) => ({ data: await reinstateAccount(principal!, path.openid) }));

import { reinstateAccount } from '../lib/features/admin/suspension.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('reinstateAccount', async ({ principal, path }) => ({ data: await reinstateAccount(principal!, path.openid) }));

import { adminDeleteAccount } from '../lib/features/deletion/deletion-api.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('adminDeleteAccount', async ({ principal, path, query }) => ({ status: 202, data: await adminDeleteAccount(principal!, path.openid, query) }));

import { adminDeleteAccount } from '../lib/deletion/deletion-api.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('adminDeleteAccount', async ({ principal, path, query }) => ({ status: 202, data: await adminDeleteAccount(principal!, path.openid, query) }));

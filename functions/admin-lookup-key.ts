import { lookupKey } from '../lib/admin/admin-keys.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('adminLookupKey', async ({ principal, body }) => ({ data: await lookupKey(principal!, body) }));

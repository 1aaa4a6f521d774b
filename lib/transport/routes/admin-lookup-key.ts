import { lookupKey } from '../lib/features/admin/admin-keys.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('adminLookupKey', async ({ principal, body }) => ({ data: await lookupKey(principal!, body) }));

import { httpHandler } from '../lib/http/handler.js';
import { verifyKeyEndpoint } from '../lib/keys/key-service.js';

export const handler = httpHandler('verifyKey', async ({ query }) => ({ data: await verifyKeyEndpoint(query.key) }));

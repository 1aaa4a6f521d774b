import { httpHandler } from '../lib/transport/http/handler.js';
import { verifyKeyEndpoint } from '../lib/features/keys/key-service.js';

export const handler = httpHandler('verifyKey', async ({ query }) => ({ data: await verifyKeyEndpoint(query.key) }));

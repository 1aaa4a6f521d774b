import { httpHandler } from '../lib/http/handler.js';
import { createKey } from '../lib/keys/key-service.js';

export const handler = httpHandler('createKey', async ({ principal, body }) => ({ status: 201, data: await createKey(principal!.user_id, body) }));

import { httpHandler } from '../lib/transport/http/handler.js';
import { createKey } from '../lib/features/keys/key-service.js';

export const handler = httpHandler('createKey', async ({ principal, body }) => ({ status: 201, data: await createKey(principal!.user_id, body) }));

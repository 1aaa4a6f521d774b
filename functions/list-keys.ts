import { httpHandler } from '../lib/http/handler.js';
import { listKeys } from '../lib/keys/key-service.js';

export const handler = httpHandler('listKeys', async ({ principal }) => ({ data: await listKeys(principal!.user_id) }));

import { httpHandler } from '../lib/transport/http/handler.js';
import { listKeys } from '../lib/features/keys/key-service.js';

export const handler = httpHandler('listKeys', async ({ principal }) => ({ data: await listKeys(principal!.user_id) }));

import { httpHandler } from '../lib/transport/http/handler.js';
import { parseKeyId, revokeKey } from '../lib/features/keys/key-service.js';

export const handler = httpHandler('revokeKey', async ({ principal, path }) => ({ data: await revokeKey(principal!.user_id, parseKeyId(path.id)) }));

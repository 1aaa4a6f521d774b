import { httpHandler } from '../lib/transport/http/handler.js';
import { deleteKey, parseKeyId } from '../lib/features/keys/key-service.js';

export const handler = httpHandler('deleteKey', async ({ principal, path }) => ({ data: await deleteKey(principal!.user_id, parseKeyId(path.id)) }));

import { httpHandler } from '../lib/http/handler.js';
import { keyUsage, parseKeyId } from '../lib/keys/key-service.js';

export const handler = httpHandler('keyUsage', async ({ principal, path }) => ({ data: await keyUsage(principal!.user_id, parseKeyId(path.id)) }));

import { httpHandler } from '../lib/http/handler.js';
import { deleteKey, parseKeyId } from '../lib/keys/key-service.js';

export const handler = httpHandler(async ({ principal, path }) => ({ data: await deleteKey(principal!.user_id, parseKeyId(path.id)) }), {
  auth: 'jwt',
});

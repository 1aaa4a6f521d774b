import { httpHandler } from '../lib/http/handler.js';
import { verifyAccessKey } from '../lib/keys/key-service.js';

export const handler = httpHandler(async ({ query }) => ({ data: { ...(await verifyAccessKey(query.key)), valid: true } }), {
  auth: 'none',
});

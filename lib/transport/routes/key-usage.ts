import { httpHandler } from '../lib/transport/http/handler.js';
import { keyUsage, parseKeyId } from '../lib/features/keys/key-service.js';

// A login token reads any of its account's keys; an access key reads its own only (docs/api-keys.md).
export const handler = httpHandler('keyUsage', async ({ principal, path }) => ({
  data: await keyUsage(principal!.user_id, parseKeyId(path.id), principal!.auth_type === 'api_key' ? { id: principal!.key_id } : undefined),
}));

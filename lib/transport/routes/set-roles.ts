import { setRoles } from '../lib/features/admin/set-roles.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('setRoles', async ({ principal, path, body }) => ({ data: await setRoles(principal!, path.openid, body) }));

import { deleteOwnAccount } from '../lib/features/deletion/deletion-api.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('deleteAccount', async ({ principal, query }) => ({ status: 202, data: await deleteOwnAccount(principal!, query) }));

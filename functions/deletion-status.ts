import { deletionStatus } from '../lib/deletion/deletion-api.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('deletionStatus', async ({ path }) => ({ data: await deletionStatus(path.id) }));

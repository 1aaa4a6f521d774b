import { deletionStatus } from '../lib/features/deletion/deletion-api.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('deletionStatus', async ({ path }) => ({ data: await deletionStatus(path.id) }));

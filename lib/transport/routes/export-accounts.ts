import { exportAccounts } from '../lib/features/export/exports.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('exportAccounts', async ({ principal, query }) => ({ data: await exportAccounts(principal!, query) }));

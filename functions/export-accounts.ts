import { exportAccounts } from '../lib/export/exports.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('exportAccounts', async ({ principal, query }) => ({ data: await exportAccounts(principal!, query) }));

import { exportComments } from '../lib/export/exports.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('exportComments', async ({ principal, query }) => ({ data: await exportComments(principal!, query) }));

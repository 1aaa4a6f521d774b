import { exportComments } from '../lib/features/export/exports.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('exportComments', async ({ principal, query }) => ({ data: await exportComments(principal!, query) }));

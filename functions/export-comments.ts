import { exportComments } from '../lib/export/exports.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler(async ({ principal, query }) => ({ data: await exportComments(principal!, query) }), {
  auth: 'any',
  scope: 'export:read',
});

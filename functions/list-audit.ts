import { auditPage } from '../lib/audit/audit-list.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('listAudit', async ({ principal, query }) => ({ data: await auditPage(principal!, query) }));

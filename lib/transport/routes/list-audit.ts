import { auditPage } from '../lib/platform/audit/audit-list.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('listAudit', async ({ principal, query }) => ({ data: await auditPage(principal!, query) }));

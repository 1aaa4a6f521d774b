import { auditPage } from '../lib/account/audit-page.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler(async ({ principal, query }) => ({ data: await auditPage(principal!, query) }), { auth: 'jwt' });

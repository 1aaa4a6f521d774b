import { httpHandler } from '../lib/transport/http/handler.js';
import { dataExportPage } from '../lib/features/personal-data/data-export.js';

export const handler = httpHandler('myData', async ({ principal, query }) => ({ data: await dataExportPage(principal!, query) }));

import { httpHandler } from '../lib/http/handler.js';
import { dataExportPage } from '../lib/personal-data/data-export.js';

export const handler = httpHandler('myData', async ({ principal, query }) => ({ data: await dataExportPage(principal!, query) }));

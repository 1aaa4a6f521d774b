import { listFilterTerms } from '../lib/filter/terms.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('listFilterTerms', async () => ({ data: await listFilterTerms() }));

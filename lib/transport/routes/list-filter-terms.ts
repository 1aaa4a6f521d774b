import { listFilterTerms } from '../lib/features/filter/terms.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('listFilterTerms', async () => ({ data: await listFilterTerms() }));

import { putFilterTerms } from '../lib/filter/terms.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('putFilterTerms', async ({ principal, body }) => ({ data: await putFilterTerms(principal!, body) }));

import { putFilterTerms } from '../lib/features/filter/terms.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('putFilterTerms', async ({ principal, body }) => ({ data: await putFilterTerms(principal!, body) }));

import { deleteFilterTerm } from '../lib/filter/terms.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('deleteFilterTerm', async ({ principal, path }) => ({ data: await deleteFilterTerm(principal!, path.term) }));

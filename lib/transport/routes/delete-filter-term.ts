import { deleteFilterTerm } from '../lib/features/filter/terms.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('deleteFilterTerm', async ({ principal, path }) => ({ data: await deleteFilterTerm(principal!, path.term) }));

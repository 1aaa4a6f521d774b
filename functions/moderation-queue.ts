import { httpHandler } from '../lib/http/handler.js';
import { moderationQueue } from '../lib/moderation/queue.js';

export const handler = httpHandler('moderationQueue', async ({ query }) => ({ data: await moderationQueue(query) }));

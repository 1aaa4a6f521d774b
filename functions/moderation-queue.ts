import { httpHandler } from '../lib/http/handler.js';
import { moderationQueue } from '../lib/moderation/queue.js';

export const handler = httpHandler('moderationQueue', async ({ query, principal }) => ({ data: await moderationQueue(query, principal?.user_id) }));

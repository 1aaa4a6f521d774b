import { httpHandler } from '../lib/transport/http/handler.js';
import { moderationQueue } from '../lib/features/moderation/queue.js';

export const handler = httpHandler('moderationQueue', async ({ query, principal }) => ({ data: await moderationQueue(query, principal?.user_id) }));

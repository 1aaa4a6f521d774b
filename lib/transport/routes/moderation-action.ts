import { httpHandler } from '../lib/transport/http/handler.js';
import { takeAction } from '../lib/features/moderation/actions.js';

export const handler = httpHandler('moderationAction', async ({ principal, body }) => ({ data: await takeAction(principal!, body) }));

import { httpHandler } from '../lib/http/handler.js';
import { takeAction } from '../lib/moderation/actions.js';

export const handler = httpHandler('moderationAction', async ({ principal, body }) => ({ data: await takeAction(principal!, body) }));

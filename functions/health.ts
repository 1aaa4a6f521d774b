import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('health', async () => ({ data: { status: 'ok' } }));

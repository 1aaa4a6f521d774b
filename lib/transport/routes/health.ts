import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('health', async () => ({ data: { status: 'ok' } }));

import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler(async () => ({ data: { status: 'ok' } }), { auth: 'none' });

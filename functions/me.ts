import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('me', async ({ principal }) => ({ data: principal }));

import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler(async ({ principal }) => ({ data: principal }), { auth: 'any' });

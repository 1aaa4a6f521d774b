import { signOut } from '../lib/sign-in/sign-out.js';
import { httpHandler } from '../lib/http/handler.js';

export const handler = httpHandler('signOut', async ({ principal, headers }) => ({ data: await signOut(principal!, headers) }));

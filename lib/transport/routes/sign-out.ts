import { signOut } from '../lib/features/sign-in/sign-out.js';
import { httpHandler } from '../lib/transport/http/handler.js';

export const handler = httpHandler('signOut', async ({ principal, headers }) => ({ data: await signOut(principal!, headers) }));

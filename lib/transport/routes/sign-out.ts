import * as z from '../../platform/zod.js';
import { signOut } from '../../features/sign-in/sign-out.js';
import { defineRoute } from '../http/define-route.js';

export const route = defineRoute({
  name: 'signOut',
  description: "End the calling login token's session (sign out)",
  // Ends the calling token's session: the ended marker and its audit event in one transaction.
  tables: { hub: { actions: ['PutItem', 'ConditionCheckItem'] } },
  jwtSecret: true,
  routes: [{ method: 'POST', path: '/api/v1/logout' }],
  auth: 'jwt',
  doc: {
    tag: 'Access keys',
    summary: "Sign out: end the calling login token's session",
    description:
      'The token gets 401 everywhere from the next request on, as when a sign-in passes it as `token0`; a `session.ended` event is stored on the account. A login token only (an access key is 401). Calling it again with the ended token is 401.',
    success: { status: 200, kind: 'json', data: z.object({ ended: z.literal(true) }) },
    errors: [401],
    examples: [{ summary: 'Sign out', data: { ended: true } }],
  },
  handler: async ({ principal, headers }) => ({ data: await signOut(principal!, headers) }),
});
export const handler = route.handler;

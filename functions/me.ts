import { httpHandler } from '../lib/http/handler.js';
import { termsOf } from '../lib/policies/policies.js';

/** Who the credential is, with the terms the account accepted (docs/protected-api.md, "GET /api/v1/me"). */
export const handler = httpHandler('me', async ({ principal }) => ({ data: { ...principal!, terms: await termsOf(principal!.user_id) } }));

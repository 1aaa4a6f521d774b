import { httpHandler } from '../lib/transport/http/handler.js';
import { currentPolicies } from '../lib/features/policies/policies.js';

/** The current terms version and the contact for reports (docs/moderation.md, "Terms and contact"). */
export const handler = httpHandler('policies', async () => ({ data: currentPolicies() }));

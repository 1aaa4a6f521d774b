import { policiesSchema } from '../../features/policies/policies-api.js';
import { currentPolicies } from '../../features/policies/policies.js';
import { defineRoute } from '../http/define-route.js';

/** The current terms version and the contact for reports (docs/moderation.md, "Terms and contact"). */
export const route = defineRoute({
  name: 'policies',
  description: 'The current terms version and the contact for reports',
  // Configuration only: the current terms version and the contact for reports.
  tables: {},
  routes: [{ method: 'GET', path: '/api/v1/policies' }],
  auth: 'none',
  doc: {
    tag: 'Service',
    summary: 'The current terms version and where to report abuse (configured per deployment)',
    description: 'No credential needed: an app shows it before sign-up (docs/moderation.md, "Terms and contact").',
    success: { status: 200, kind: 'json', data: policiesSchema },
    errors: [],
    examples: [
      {
        summary: 'A deployment with its terms page and an abuse address',
        data: { terms: { version: '2026-11-01', url: 'https://expohub.example.com/terms' }, contact: { email: 'abuse@expohub.example.com', url: null } },
      },
    ],
  },
  handler: async () => ({ data: currentPolicies() }),
});
export const handler = route.handler;

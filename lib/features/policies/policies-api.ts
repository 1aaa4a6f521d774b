import * as z from '../../platform/zod.js';
import { defineRouteDoc, type Same } from '../../platform/api-doc.js';
import type { Principal } from '../auth/principal.js';
import type { currentPolicies, TermsStatus } from './policies.js';

/** The terms an account accepted, in GET /api/v1/me, create_phone_account and accept_terms (lib/platform/api-doc.ts). */
export const termsStatusSchema = z.object({
  accepted_version: z.union([z.string(), z.null()]),
  accepted_at: z.union([z.string(), z.null()]),
  current_version: z.string(),
  accepted_current: z.boolean(),
});
export const exampleTerms = { accepted_version: '1', accepted_at: '2026-01-05T09:00:00.000Z', current_version: '1', accepted_current: true };

const policies = z.object({
  terms: z.object({ version: z.string(), url: z.union([z.string(), z.null()]) }),
  contact: z.object({ email: z.union([z.string(), z.null()]), url: z.union([z.string(), z.null()]) }),
});

const principal = z.object({
  user_id: z.string(),
  auth_type: z.enum(['jwt', 'api_key']),
  scopes: z.array(z.string()),
  roles: z.array(z.string()),
  /** An access key's own id (absent for a login token): its usage is GET /api/v1/api-keys/{key_id}/usage. */
  key_id: z.optional(z.number().check(z.int(), z.positive())),
});
const me = z.object({
  ...principal.shape,
  terms: termsStatusSchema,
  /** For a login token, only when there is one: the profile values the filter holds (docs/moderation.md, "Filter"). */
  pending_profile: z.optional(z.object({ nickname: z.optional(z.string()), signature: z.optional(z.string()), city: z.optional(z.string()) })),
});
const shapesMatch: [Same<z.output<typeof principal>, Principal>, Same<z.output<typeof termsStatusSchema>, TermsStatus>, Same<z.output<typeof policies>, ReturnType<typeof currentPolicies>>] = [true, true, true];
void shapesMatch;

export const meDoc = defineRouteDoc({
  tag: 'Protected',
  summary: 'Who the credential is (lets a script check its JWT or access key), and the terms version the account accepted',
  description:
    '`terms`: the terms of use the account accepted (docs/moderation.md, "Terms and contact"). `pending_profile`, for a login token and only when there is one: profile values the filter holds until a moderator approves them (docs/moderation.md, "Filter"); others still see the previous values.',
  success: { status: 200, kind: 'json', data: me },
  errors: [401],
  examples: [{ summary: 'An access key', data: { user_id: 'u_9f2c4e1a7b', auth_type: 'api_key', scopes: ['export:read'], roles: [], key_id: 42, terms: exampleTerms } }],
});

export const policiesDoc = defineRouteDoc({
  tag: 'Service',
  summary: 'The current terms version and where to report abuse (configured per deployment)',
  description: 'No credential needed: an app shows it before sign-up (docs/moderation.md, "Terms and contact").',
  success: { status: 200, kind: 'json', data: policies },
  errors: [],
  examples: [
    {
      summary: 'A deployment with its terms page and an abuse address',
      data: { terms: { version: '2026-11-01', url: 'https://expohub.example.com/terms' }, contact: { email: 'abuse@expohub.example.com', url: null } },
    },
  ],
});

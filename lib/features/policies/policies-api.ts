import * as z from '../../platform/zod.js';
import { principalSchema } from '../auth/principal.js';

/** The terms an account accepted, in GET /api/v1/me, create_phone_account and accept_terms, and what GET /api/v1/me and GET /api/v1/policies answer (lib/transport/routes/me.ts, policies.ts), for the OpenAPI document (lib/platform/api-doc.ts). */
export const termsStatusSchema = z.object({
  accepted_version: z.union([z.string(), z.null()]),
  accepted_at: z.union([z.string(), z.null()]),
  current_version: z.string(),
  /** false: the client should show the current terms and record their acceptance (accept_terms). */
  accepted_current: z.boolean(),
});
export const exampleTerms = { accepted_version: '1', accepted_at: '2026-01-05T09:00:00.000Z', current_version: '1', accepted_current: true };

export const policiesSchema = z.object({
  terms: z.object({ version: z.string(), url: z.union([z.string(), z.null()]) }),
  contact: z.object({ email: z.union([z.string(), z.null()]), url: z.union([z.string(), z.null()]) }),
});

export const meSchema = z.object({
  ...principalSchema.shape,
  terms: termsStatusSchema,
  /** For a login token, only when there is one: the profile values the filter holds (docs/moderation.md, "Filter"). */
  pending_profile: z.optional(z.object({ nickname: z.optional(z.string()), signature: z.optional(z.string()), city: z.optional(z.string()) })),
});

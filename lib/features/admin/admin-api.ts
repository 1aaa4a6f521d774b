import * as z from '../../platform/zod.js';

/** What the administration routes (lib/transport/routes/admin-*.ts, set-roles.ts, suspend-account.ts, reinstate-account.ts) answer, for the OpenAPI document (lib/platform/api-doc.ts). */
export const rolesResult = z.object({ openid: z.string(), roles: z.array(z.string()) });

/** The description every administration route shares. */
export const adminOnly = 'Needs an admin login token (the request-context roles); an access key is 403. The action is an audit event on the affected account.';

export const suspensionResult = z.object({
  openid: z.string(),
  suspended: z.boolean(),
  /** When the current suspension began; null when the account is not suspended. */
  suspended_at: z.union([z.string(), z.null()]),
  /** How many of the account's keys now carry the suspension marker (or, on reinstate, lost it). */
  keys: z.number().check(z.int(), z.minimum(0)),
});

/** Suspend and reinstate: the same path, answer and errors; what differs is the summary and the example. */
export const suspensionDoc = (summary: string, example: { summary: string; suspended_at: string | null }) => ({
  tag: 'Administration' as const,
  summary,
  description: adminOnly,
  success: { status: 200 as const, kind: 'json' as const, data: suspensionResult },
  errors: [401, 403, 404],
  examples: [
    {
      summary: example.summary,
      path: { openid: 'u_9f2c4e1a7b' },
      data: { openid: 'u_9f2c4e1a7b', suspended: example.suspended_at !== null, suspended_at: example.suspended_at, keys: 2 },
    },
  ],
});

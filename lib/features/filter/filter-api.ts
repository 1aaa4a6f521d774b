import * as z from '../../platform/zod.js';

/** What the filter's administration routes (lib/transport/routes/*-filter-term*.ts) answer, for the OpenAPI document (lib/platform/api-doc.ts; docs/moderation.md, "Filter"). */
export const termList = z.object({
  version: z.number().check(z.int(), z.minimum(0)),
  terms: z.array(z.object({ term: z.string(), action: z.enum(['reject', 'hold']) })),
  updated_at: z.union([z.string(), z.null()]),
});
export const changedList = z.object({ ...termList.def.shape, changed: z.boolean() });

export const adminOnly =
  'Needs an admin login token (the request-context roles); an access key is 403. Terms are stored in their normalised form (NFKC, lower case, separators removed: docs/moderation.md, "Filter"); every function applies a change within 60 seconds.';
export const example = { version: 3, terms: [{ term: 'spam', action: 'hold' as const }, { term: '傻逼', action: 'reject' as const }], updated_at: '2026-11-25T10:00:00.000Z' };

import * as z from '../../platform/zod.js';
import { defineRouteDoc, type Same } from '../../platform/api-doc.js';
import { filterTermPath, putFilterTermsBodySchema, type FilterTermList } from './terms.js';

/** The filter's administration routes in the OpenAPI document (lib/platform/api-doc.ts; docs/moderation.md, "Filter"). */
const termList = z.object({
  version: z.number().check(z.int(), z.minimum(0)),
  terms: z.array(z.object({ term: z.string(), action: z.enum(['reject', 'hold']) })),
  updated_at: z.union([z.string(), z.null()]),
});
const listMatches: Same<z.output<typeof termList>, FilterTermList> = true;
void listMatches;
const changedList = z.object({ ...termList.def.shape, changed: z.boolean() });

const adminOnly =
  'Needs an admin login token (the request-context roles); an access key is 403. Terms are stored in their normalised form (NFKC, lower case, separators removed: docs/moderation.md, "Filter"); every function applies a change within 60 seconds.';
const example = { version: 3, terms: [{ term: 'spam', action: 'hold' as const }, { term: '傻逼', action: 'reject' as const }], updated_at: '2026-11-25T10:00:00.000Z' };

export const listFilterTermsDoc = defineRouteDoc({
  tag: 'Administration',
  summary: 'The filter term list, with its version',
  description: adminOnly,
  success: { status: 200, kind: 'json', data: termList },
  errors: [401, 403],
  examples: [{ summary: 'Two terms', data: example }],
});

export const putFilterTermsDoc = defineRouteDoc({
  tag: 'Administration',
  summary: 'Add terms, or replace the action of terms already listed (a repeat changes nothing: `changed: false`)',
  description: `${adminOnly} A change is an audit event on the administrator's account (\`filter.terms_changed\`, with the new version).`,
  body: putFilterTermsBodySchema,
  success: { status: 200, kind: 'json', data: changedList },
  errors: [401, 403],
  examples: [{ summary: 'Hold comments that say "spam"', body: { terms: [{ term: 'SPAM', action: 'hold' }] }, data: { ...example, changed: true } }],
});

export const deleteFilterTermDoc = defineRouteDoc({
  tag: 'Administration',
  summary: 'Remove a term, given in any spelling that normalises to it (absent: `changed: false`)',
  description: `${adminOnly} A change is an audit event on the administrator's account.`,
  pathParams: filterTermPath,
  success: { status: 200, kind: 'json', data: changedList },
  errors: [401, 403],
  examples: [{ summary: 'Remove "spam"', path: { term: 'spam' }, data: { version: 4, terms: [{ term: '傻逼', action: 'reject' }], updated_at: '2026-11-25T10:05:00.000Z', changed: true } }],
});

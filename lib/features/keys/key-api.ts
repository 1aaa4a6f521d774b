import * as z from '../../platform/zod.js';
import { documentAs } from '../../platform/api-doc.js';

/**
 * The shapes the key routes (lib/transport/routes/*-key*.ts) answer with, for the OpenAPI document
 * (lib/platform/api-doc.ts); checked against the answer types at compile time and against real
 * answers in test/e2e/openapi.test.ts.
 */
const timestamp = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'must be ISO 8601 UTC with milliseconds'));

export const publicKeySchema = z.object({
  id: z.number().check(z.int(), z.positive()),
  name: z.string(),
  key_prefix: z.literal('ak_'),
  user_id: z.string(),
  scopes: z.array(z.string()),
  expires_at: z.union([timestamp, z.null()]),
  last_used_at: z.union([timestamp, z.null()]),
  is_active: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
  status: z.enum(['valid', 'revoked', 'expired']),
  key_hint: z.string().check(z.regex(/^ak_…([A-Za-z0-9]{4})?$/, 'must be ak_… and the last 4 characters')),
  rate_limit_per_minute: z.number().check(z.int(), z.positive()),
});


/** A key id in a path: a positive integer (the `id` of the key record), typed as one in the document. */
export const keyIdPath = z.object({
  id: z.pipe(
    documentAs(z.string().check(z.regex(/^[1-9][0-9]{0,14}$/, 'must be a positive integer')), { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 }),
    z.transform(Number),
  ),
});
export const exampleKey: z.output<typeof publicKeySchema> = {
  id: 42,
  name: 'CI pipeline',
  key_prefix: 'ak_',
  user_id: 'u_9f2c4e1a7b',
  scopes: ['videos:write'],
  expires_at: null,
  last_used_at: null,
  is_active: true,
  created_at: '2026-01-05T08:30:00.000Z',
  updated_at: '2026-01-05T08:30:00.000Z',
  status: 'valid',
  key_hint: 'ak_…j1Uo',
  rate_limit_per_minute: 600,
};

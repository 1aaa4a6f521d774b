import { itemParser } from '../../platform/db/item-check.js';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import type { termList } from './filter-api.js';
import type { Principal } from '../auth/principal.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { clock } from '../../platform/clock.js';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { cancellationCode, transactWrite } from '../../platform/db/transact.js';
import { UnavailableError, ValidationError } from '../../platform/errors.js';
import { charLength, checkedText } from '../../platform/text.js';
import { matchText, normaliseTerm, type FilterMatch, type FilterTerm } from './match.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const filterTermKeys = {
  /** The whole term list, one item with its version (docs/moderation.md, "Filter"). */
  list: () => ({ pk: 'FILTER#TERMS', sk: 'LIST' }),
};

/** The most terms the list holds, and the longest term (characters as typed). */
export const MAX_FILTER_TERMS = 1000;
export const MAX_TERM_CHARS = 40;
/**
 * How long a function keeps the list it read: a change reaches every function within this bound,
 * without a deploy (docs/moderation.md, "Filter").
 */
export const FILTER_CACHE_MS = 60_000;

/** The term list as the admin routes answer it (its schema: lib/features/filter/filter-api.ts). */
export type FilterTermList = z.output<typeof termList>;

interface StoredList {
  version: number;
  terms: FilterTerm[];
  updated_at: string;
  updated_by: string;
}

const termSchema = documentAs(
  checkedText(
    z.string({ error: 'must be a string' }).check(z.trim(), z.minLength(1, 'must not be empty'), z.refine((t) => charLength(t) <= MAX_TERM_CHARS, `must be at most ${MAX_TERM_CHARS} characters`)),
  ).check(z.refine((t) => normaliseTerm(t).length > 0, 'must hold a letter, digit or character that is not a separator')),
  { maxLength: MAX_TERM_CHARS },
  'add',
);

export const filterTermSchema = z.strictObject({
  term: termSchema,
  action: z.enum(['reject', 'hold'], { error: 'must be reject or hold' }),
});

/** `POST /api/v1/admin/filter-terms`: terms to add, or whose action to replace (matched by normalised form). */
export const putFilterTermsBodySchema = z.strictBody({
  terms: z.array(filterTermSchema, { error: 'must be an array of {term, action}' }).check(z.minLength(1, 'must hold at least one term'), z.maxLength(MAX_FILTER_TERMS, `must hold at most ${MAX_FILTER_TERMS} terms`)),
});

export const filterTermPath = z.object({ term: termSchema });

/** The checked parse of the stored filter term list. */
const listFromItem = itemParser<StoredList>('filter terms', { entity: 'filter_terms', required: { version: 'number', terms: 'list' } });

async function readStoredList(consistent: boolean): Promise<StoredList | undefined> {
  const out = await db.send(new GetCommand({ TableName: tableNames.hub, Key: filterTermKeys.list(), ConsistentRead: consistent }));
  return listFromItem(out.Item);
}

const viewOf = (stored: StoredList | undefined): FilterTermList => ({ version: stored?.version ?? 0, terms: stored?.terms ?? [], updated_at: stored?.updated_at ?? null });

let cache: { table: string; terms: FilterTerm[]; readAt: number } | undefined;

/**
 * The list every write of text is checked against: read at most once per FILTER_CACHE_MS per
 * function (container), so a change made through the admin routes applies everywhere within a
 * minute. No list stored: nothing is filtered.
 */
export async function currentFilterTerms(): Promise<FilterTerm[]> {
  const now = clock.now();
  const table = tableNames.hub;
  if (cache && cache.table === table && now >= cache.readAt && now - cache.readAt < FILTER_CACHE_MS) return cache.terms;
  const stored = await readStoredList(false);
  cache = { table, terms: stored?.terms ?? [], readAt: now };
  return cache.terms;
}

/** Drops the cached list: the next check reads it (a harness that must know when the read happens). */
export function forgetCachedFilterTerms(): void {
  cache = undefined;
}

/**
 * What the filter says of the fields of one write, in order: the first field a `reject` term matches
 * (400 VALIDATION_ERROR naming the field; the message does not repeat the term, which would teach
 * the evasion), else the fields a `hold` term matches.
 */
export async function checkFields(fields: Record<string, string | undefined>): Promise<{ held: string[] }> {
  const terms = await currentFilterTerms();
  const held: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (!value) continue;
    const match: FilterMatch | undefined = matchText(value, terms);
    if (match?.action === 'reject') throw new ValidationError(`Invalid parameter "${name}": contains a term that is not allowed`);
    if (match) held.push(name);
  }
  return { held };
}

/** `GET /api/v1/admin/filter-terms`: the list as stored now (strongly consistent). */
export async function listFilterTerms(): Promise<FilterTermList> {
  return viewOf(await readStoredList(true));
}

/**
 * One change of the list: read, changed, written back conditioned on the version read, with its
 * audit event in the same transaction. A change that changes nothing (a repeat) writes nothing and
 * stores no event.
 */
async function changeList(principal: Principal, change: (terms: FilterTerm[]) => FilterTerm[]): Promise<FilterTermList & { changed: boolean }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const stored = await readStoredList(true);
    const before = stored?.terms ?? [];
    const after = change(before);
    if (after.length > MAX_FILTER_TERMS) throw new ValidationError(`Invalid parameter "terms": the list would hold ${after.length} terms, at most ${MAX_FILTER_TERMS}`);
    const same = after.length === before.length && after.every((t, i) => t.term === before[i]!.term && t.action === before[i]!.action);
    if (same) return { ...viewOf(stored), changed: false };
    const now = clock.now();
    const version = (stored?.version ?? 0) + 1;
    const item: StoredList & Record<string, unknown> = { ...filterTermKeys.list(), entity: 'filter_terms', version, terms: after, updated_at: new Date(now).toISOString(), updated_by: principal.user_id };
    const event: AuditEvent = { action: 'filter.terms_changed', actor: principal.user_id, subject: principal.user_id, via: principal.auth_type, filter_version: version };
    try {
      await transactWrite([
        {
          Put: {
            TableName: tableNames.hub,
            Item: item,
            ConditionExpression: stored ? 'version = :read' : 'attribute_not_exists(pk)',
            ...(stored ? { ExpressionAttributeValues: { ':read': stored.version } } : {}),
          },
        },
        auditItem(event, now),
      ]);
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') continue; // another change landed: apply this one to it
      throw error;
    }
    writeAuditLine(event);
    return { ...viewOf(item), changed: true };
  }
  throw new UnavailableError('The filter term list is being changed by another request; retry shortly');
}

/** Terms sorted by their normalised form: the stored order, so that a repeat compares equal. */
const sorted = (terms: FilterTerm[]) => [...terms].sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));

/** `POST /api/v1/admin/filter-terms`: adds the terms, or replaces the action of those already listed. */
export async function putFilterTerms(principal: Principal, { terms }: z.output<typeof putFilterTermsBodySchema>): Promise<FilterTermList & { changed: boolean }> {
  const given = new Map(terms.map((t) => [normaliseTerm(t.term), t.action] as const));
  return changeList(principal, (before) => {
    const merged = new Map(before.map((t) => [t.term, t.action] as const));
    for (const [term, action] of given) merged.set(term, action);
    return sorted([...merged].map(([term, action]) => ({ term, action })));
  });
}

/** `DELETE /api/v1/admin/filter-terms/{term}`: removes the term (given in any spelling that normalises to it); absent: changes nothing. */
export async function deleteFilterTerm(principal: Principal, given: string): Promise<FilterTermList & { changed: boolean }> {
  const term = normaliseTerm(given);
  return changeList(principal, (before) => before.filter((t) => t.term !== term));
}

/**
 * Stores `terms` as the whole list when none is stored, as version 1 (the local server's default
 * list, local/default-filter-terms.json): true when it did. Not audited: no one acted.
 */
export async function seedFilterTerms(terms: FilterTerm[]): Promise<boolean> {
  const list = sorted([...new Map(terms.map((t) => [normaliseTerm(t.term), t.action] as const))].map(([term, action]) => ({ term, action })));
  const item = { ...filterTermKeys.list(), entity: 'filter_terms', version: 1, terms: list, updated_at: clock.nowIso(), updated_by: 'local-seed' };
  try {
    await db.send(new PutCommand({ TableName: tableNames.hub, Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    return true;
  } catch (error) {
    if (isConditionalCheckFailed(error)) return false;
    throw error;
  }
}

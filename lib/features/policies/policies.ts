import { acceptTermsItem, getAccount, isDeleted, termsAcceptedEvent, type Account } from '../../entities/accounts/accounts.js';
import { auditItem, writeAuditLine } from '../../platform/audit/trail.js';
import { clock } from '../../platform/clock.js';
import { config, TERMS_VERSION_PATTERN } from '../../platform/config.js';
import { cancellationCode, transactWrite } from '../../platform/db/transact.js';
import { NotFoundError } from '../../platform/errors.js';
import { documentAs } from '../../platform/api-doc.js';
import * as z from '../../platform/zod.js';
import type { policiesSchema, termsStatusSchema } from './policies-api.js';

/**
 * The terms of use an account accepted and where to report abuse (docs/moderation.md, "Terms and
 * contact"). The current version and the contact are configuration (TERMS_VERSION, TERMS_URL,
 * CONTACT_EMAIL, CONTACT_URL); what an account accepted is on its account item.
 */

export const termsVersionParam = z.string().check(z.trim(), z.regex(TERMS_VERSION_PATTERN, 'must be 1-32 letters, digits, dots, underscores or hyphens (the version of the terms the client shows)'));
/** termsVersionParam as the document shows it: the pattern, with the whitespace the server trims first. */
export const termsVersionWire = { type: 'string', pattern: `^\\s*${TERMS_VERSION_PATTERN.source.slice(1, -1)}\\s*$` };
documentAs(termsVersionParam, termsVersionWire);

/** `GET /api/v1/policies`: the current terms and the contact for reports. */
export function currentPolicies(): z.output<typeof policiesSchema> {
  return {
    terms: { version: config.TERMS_VERSION, url: config.TERMS_URL ?? null },
    contact: { email: config.CONTACT_EMAIL ?? null, url: config.CONTACT_URL ?? null },
  };
}

/** What `GET /api/v1/me` says about an account's terms. */
/** The terms an account accepted (its schema: lib/features/policies/policies-api.ts). */
export type TermsStatus = z.output<typeof termsStatusSchema>;

export function termsStatus(account: Pick<Account, 'terms_version' | 'terms_accepted_at'> | undefined): TermsStatus {
  const accepted = account?.terms_version ?? null;
  return {
    accepted_version: accepted,
    accepted_at: account?.terms_accepted_at ?? null,
    current_version: config.TERMS_VERSION,
    accepted_current: accepted === config.TERMS_VERSION,
  };
}

/**
 * accept_terms: records that the account accepted `version` now, with its audit event, in one
 * transaction. Accepting the version already recorded changes nothing (a retry, a second tap).
 */
export async function acceptTerms(openid: string, version: string, via: string): Promise<{ terms: TermsStatus }> {
  const account = await getAccount(openid, true);
  if (!account || isDeleted(account)) throw new NotFoundError('This account does not exist');
  if (account.terms_version === version) return { terms: termsStatus(account) };
  const at = clock.nowIso();
  const event = termsAcceptedEvent(openid, version, via);
  try {
    await transactWrite([acceptTermsItem(openid, version, at), auditItem(event)]);
  } catch (error) {
    if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw new NotFoundError('This account does not exist');
    throw error;
  }
  writeAuditLine(event);
  return { terms: termsStatus({ terms_version: version, terms_accepted_at: at }) };
}

/** The caller's terms status (GET /api/v1/me): one consistent read of the account item. */
export async function termsOf(openid: string): Promise<TermsStatus> {
  return termsStatus(await getAccount(openid, true));
}

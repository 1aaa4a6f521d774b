import { termsStatus } from '../policies/policies.js';
import { decodeVerifiedToken, issueToken, type TokenClaims } from '../auth/jwt.js';
import { endSessionItem } from '../../entities/accounts/sessions.js';
import { clock } from '../../platform/clock.js';
import { config } from '../../platform/config.js';
import type { TransactItem } from '../../platform/db/transact.js';
import { AuthError, RateLimitedError } from '../../platform/errors.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { getAccount, isDeleted, personIdOf, SignInGuardFailed, signInByPhone } from '../../entities/accounts/accounts.js';
import { liveBlocks, moveBlockItems, moveBlocks, pendingBlocks, type PendingBlock } from '../../entities/social/blocks.js';
import { codeMatches, consumeCodeItem, getCode, MAX_CODE_ATTEMPTS, recordWrongTry, type StoredCode } from '../../platform/sms/codes.js';

/** The person's blocks moved within the sign-in's transaction (3 items each, beside at most 8 of the sign-in itself: 100 in all). */
const BLOCKS_IN_SIGN_IN = 30;

const WRONG_OR_EXPIRED = 'The code is wrong, used or expired; check it or request a new one';

function codeEnded(code: StoredCode, now: number): RateLimitedError {
  const canResendIn = (code.sent_at + config.RATE_SMS_PHONE_INTERVAL_S * 1000 - now) / 1000;
  return new RateLimitedError('Too many wrong codes: this code no longer works; request a new one', canResendIn);
}

/** The 401 or 429 for a code that could not be spent, decided on its current state. */
async function refusal(phone: string, nonce: string, now: number): Promise<Error> {
  const current = await getCode(phone, nonce);
  if (current && !current.used && current.attempts >= MAX_CODE_ATTEMPTS) return codeEnded(current, now);
  return new AuthError(WRONG_OR_EXPIRED);
}

/**
 * The device's previous session when openid0/token0 form a valid one, to be ended; an invalid pair
 * is ignored (a dependency failure is not: it is the request's 503).
 */
async function previousSession(openid0: string, token0: string): Promise<TokenClaims | undefined> {
  if (!openid0 || !token0) return undefined;
  const claims = await decodeVerifiedToken(token0).catch((error: unknown) => {
    if (error instanceof AuthError) return undefined;
    throw error;
  });
  return claims && claims.sub === openid0 ? claims : undefined;
}

/**
 * create_phone_account: `openid` is the phone given to gen_code, `token` its nonce, `code` the SMS
 * code. Only the code of that (phone, nonce) is checked: codes other devices asked for are neither
 * tried nor spent. Wrong tries are counted on the code (the 5th ends it); the right code is spent in
 * the same transaction that creates a new account, so it works exactly once.
 */

export async function signInWithCode({ phone, nonce, code, openid0, token0, invite_uid, terms_version }: { phone: string; nonce: string; code: string; openid0: string; token0: string; invite_uid?: string; terms_version?: string }) {
  const now = clock.now();
  const stored = await getCode(phone, nonce);
  if (!stored || stored.used || stored.expires_at <= now) throw new AuthError(WRONG_OR_EXPIRED);
  if (stored.attempts >= MAX_CODE_ATTEMPTS) throw codeEnded(stored, now);

  if (!(await codeMatches(stored.code_hash, phone, nonce, code))) {
    const attempts = await recordWrongTry(phone, nonce, stored.code_hash);
    if (attempts === undefined) throw await refusal(phone, nonce, now);
    const left = MAX_CODE_ATTEMPTS - attempts;
    throw new AuthError(left > 0 ? `Wrong code; ${left} ${left === 1 ? 'try' : 'tries'} left` : 'Wrong code; this code no longer works, request a new one');
  }

  // An unknown or deleted inviter is ignored (the transaction checks it again: signInByPhone).
  const inviterAccount = invite_uid ? await getAccount(invite_uid) : undefined;
  const inviter = inviterAccount && !isDeleted(inviterAccount) ? invite_uid : undefined;
  // One transaction spends the code, creates or signs in to the account and ends the previous
  // session: a failure anywhere leaves the code unspent for the retry. Only signing follows.
  const ended = await previousSession(openid0, token0);
  let endedEvent: AuditEvent | undefined;
  const person = personIdOf(phone);
  let overflow: PendingBlock[] = [];
  // Ending the previous session and its audit event (on the ended session's account) join the
  // sign-in's transaction, and so do the blocks of this person that still name an earlier, deleted
  // account of the phone (docs/moderation.md, "Blocking"): the account is blocked before any token
  // of it exists.
  let tries = 0;
  const also = async (openid: string): Promise<TransactItem[]> => {
    const found = await pendingBlocks(person, openid);
    // A try failed on a moved block's condition: only the blocks whose lists still hold the entry (stale person items removed).
    const pending = tries++ > 0 && found.length > 0 ? await liveBlocks(person, found) : found;
    overflow = pending.slice(BLOCKS_IN_SIGN_IN);
    const moved = pending.slice(0, BLOCKS_IN_SIGN_IN).flatMap((b) => moveBlockItems(person, openid, b));
    if (!ended) return moved;
    endedEvent = { action: 'session.ended', actor: openid, subject: ended.sub, session_id: ended.jti, via: 'sms_code' };
    return [endSessionItem(ended.jti, ended.exp), auditItem(endedEvent), ...moved];
  };
  let signedIn;
  try {
    signedIn = await signInByPhone(phone, { guard: consumeCodeItem(phone, nonce, stored.code_hash, now), inviter, also, terms: terms_version });
  } catch (error) {
    if (error instanceof SignInGuardFailed) throw await refusal(phone, nonce, now);
    throw error;
  }
  // Stored: the previous session is over (ended again, and written again, if it already was).
  if (endedEvent) writeAuditLine(endedEvent);
  // More blocks than one transaction holds: the rest moved now, still before any token; a failure
  // here (503, the code spent) leaves them for the next sign-in, which moves them first.
  if (overflow.length > 0) await moveBlocks(person, signedIn.account.openid, overflow);

  const issued = await issueToken(signedIn.account.openid, signedIn.account.roles ?? []);
  return { openid: signedIn.account.openid, token: issued.token, new_account: signedIn.created, expires_at: issued.expires_at, terms: termsStatus(signedIn.account) };
}

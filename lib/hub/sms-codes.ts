import { createHmac, timingSafeEqual } from 'node:crypto';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { derivedKey, getSigningSecrets, verificationSecrets, type SigningSecret } from '../auth/jwt-secret.js';
import { db, isConditionalCheckFailed, tableNames } from '../db/client.js';
import { retryTransient } from '../db/failures.js';
import { hubItems } from '../db/hub-items.js';
import { retryOnConflict, type TransactItem } from '../db/transact.js';
import { logger } from '../logger.js';

/** Wrong tries a code survives: the 5th wrong try ends it. */
export const MAX_CODE_ATTEMPTS = 5;

/** The stored state of a phone's current code: never the code itself. */
export interface StoredCode {
  code_hash: string;
  nonce: string;
  attempts: number;
  used: boolean;
  /** epoch milliseconds */
  sent_at: number;
  expires_at: number;
}

/**
 * HMAC-SHA256 over phone, nonce and code, so a code only matches the phone and nonce it was sent
 * for. The key is derived (HKDF) from the JWT signing secret, so a copy of the table alone cannot
 * brute-force the 10^6 possible codes.
 */
const hmacOfCode = (secret: SigningSecret, phone: string, nonce: string, code: string) =>
  createHmac('sha256', derivedKey(secret, 'sms-code-hmac')).update(`${phone}\n${nonce}\n${code}`).digest('hex');

/** The hash stored for a new code: keyed from the current signing secret. */
export async function hashCode(phone: string, nonce: string, code: string): Promise<string> {
  return hmacOfCode((await getSigningSecrets()).current, phone, nonce, code);
}

/** Whether `code` is the one stored as `storedHash`: hashed with the current or, across a rotation, the previous secret. */
export async function codeMatches(storedHash: string, phone: string, nonce: string, code: string): Promise<boolean> {
  return (await verificationSecrets()).some((secret) => sameHash(hmacOfCode(secret, phone, nonce, code), storedHash));
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

const TABLE = () => tableNames.hub;

/**
 * Stores a new code, replacing the previous one, unless a code was sent less than `intervalSeconds`
 * ago (the condition is the exact one-send-per-interval limit).
 */
export function putCodeItem(phone: string, code: StoredCode, intervalSeconds: number): TransactItem {
  const ttl = Math.ceil(Math.max(code.expires_at, code.sent_at + intervalSeconds * 1000) / 1000) + 60;
  return {
    Put: {
      TableName: TABLE(),
      Item: { ...hubItems.smsCode(phone), entity: 'sms_code', ...code, ttl },
      ConditionExpression: 'attribute_not_exists(pk) OR sent_at <= :since',
      ExpressionAttributeValues: { ':since': code.sent_at - intervalSeconds * 1000 },
    },
  };
}

export async function getCode(phone: string): Promise<StoredCode | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: hubItems.smsCode(phone), ConsistentRead: true }));
  return out.Item as StoredCode | undefined;
}

/**
 * Removes a code whose SMS could not be sent (only that code: a newer one is left alone). It runs
 * right after a failure, so transient errors are retried; one that still fails is logged and left
 * (the code was never sent, it cannot be used; it blocks a new one for the resend interval).
 */
export async function deleteUnsentCode(phone: string, codeHash: string): Promise<void> {
  await retryTransient(() =>
    db.send(
      new DeleteCommand({
        TableName: TABLE(),
        Key: hubItems.smsCode(phone),
        ConditionExpression: 'code_hash = :h',
        ExpressionAttributeValues: { ':h': codeHash },
      }),
    ),
  ).catch((error: Error) => {
    if (!isConditionalCheckFailed(error)) logger.warn('unsent code not removed', { errorName: error.name });
  });
}

/**
 * Counts a wrong try against the code that was checked. Returns the attempts so far, or undefined
 * when that code is no longer the live one (replaced, used or already ended).
 */
export async function recordWrongTry(phone: string, codeHash: string): Promise<number | undefined> {
  try {
    const out = await retryOnConflict(() =>
      db.send(
        new UpdateCommand({
          TableName: TABLE(),
          Key: hubItems.smsCode(phone),
          UpdateExpression: 'ADD attempts :one',
          ConditionExpression: 'code_hash = :h AND used = :no AND attempts < :max',
          ExpressionAttributeValues: { ':one': 1, ':h': codeHash, ':no': false, ':max': MAX_CODE_ATTEMPTS },
          ReturnValues: 'UPDATED_NEW',
        }),
      ),
    );
    return Number(out.Attributes?.attempts);
  } catch (error) {
    if (isConditionalCheckFailed(error)) return undefined;
    throw error;
  }
}

/**
 * Spends the code, as a transaction item: it succeeds once, for the live, unexpired code that has
 * wrong tries left, so two parallel requests with the right code cannot both sign in.
 */
export function consumeCodeItem(phone: string, codeHash: string, nowMs: number): TransactItem {
  return {
    Update: {
      TableName: TABLE(),
      Key: hubItems.smsCode(phone),
      UpdateExpression: 'SET used = :yes, used_at = :now',
      ConditionExpression: 'code_hash = :h AND used = :no AND attempts < :max AND expires_at > :now',
      ExpressionAttributeValues: { ':yes': true, ':no': false, ':h': codeHash, ':max': MAX_CODE_ATTEMPTS, ':now': nowMs },
    },
  };
}

import { itemParser } from '../db/item-check.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { derivedKey, getSigningSecrets, verificationSecrets, type SigningSecret } from '../secrets/signing-secrets.js';
import { db, isConditionalCheckFailed, tableNames } from '../db/client.js';
import { retryTransient } from '../db/failures.js';
import { retryOnConflict, type TransactItem } from '../db/transact.js';
import { logger } from '../logger.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const smsKeys = {
  /**
   * A pending SMS code of a phone, one per nonce (the device that asked), hash only, with a TTL: a
   * request from another device never replaces it (docs/hub-api.md, "gen_code").
   */
  smsCode: (e164: string, nonce: string) => ({ pk: `PHONE#${e164}`, sk: `CODE#${nonce}` }),
  /** When a phone was last sent a code for one caller network (its resend wait), with a TTL. */
  smsRequester: (e164: string, network: string) => ({ pk: `PHONE#${e164}`, sk: `SENT#${network}` }),
};


/** Wrong tries a code survives: the 5th wrong try ends it. */
export const MAX_CODE_ATTEMPTS = 5;

/** The stored state of one pending code (a phone and the nonce it was asked with): never the code itself. */
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

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

const TABLE = () => tableNames.hub;

/**
 * Stores a new code for (phone, nonce), replacing only that nonce's previous one, unless it was sent
 * less than `intervalSeconds` ago: the codes of other nonces (other devices) are not touched
 * (docs/hub-api.md, "gen_code").
 */
export function putCodeItem(phone: string, code: StoredCode, intervalSeconds: number): TransactItem {
  const ttl = Math.ceil(Math.max(code.expires_at, code.sent_at + intervalSeconds * 1000) / 1000) + 60;
  return {
    Put: {
      TableName: TABLE(),
      Item: { ...smsKeys.smsCode(phone, code.nonce), entity: 'sms_code', ...code, ttl },
      ConditionExpression: 'attribute_not_exists(pk) OR sent_at <= :since',
      ExpressionAttributeValues: { ':since': code.sent_at - intervalSeconds * 1000 },
    },
  };
}

/**
 * Records a send to `phone` for a caller network, unless one was sent for that network less than
 * `intervalSeconds` ago: the resend wait of a requester, which a caller elsewhere cannot reset.
 */
export function putRequesterItem(phone: string, network: string, sentAt: number, intervalSeconds: number): TransactItem {
  return {
    Put: {
      TableName: TABLE(),
      Item: { ...smsKeys.smsRequester(phone, network), entity: 'sms_requester', sent_at: sentAt, ttl: Math.ceil(sentAt / 1000) + intervalSeconds + 60 },
      ConditionExpression: 'attribute_not_exists(pk) OR sent_at <= :since',
      ExpressionAttributeValues: { ':since': sentAt - intervalSeconds * 1000 },
    },
  };
}

/** The checked parse of a stored SMS code. */
const codeFromItem = itemParser<StoredCode>('sms code', {
  entity: 'sms_code',
  required: { code_hash: 'string', nonce: 'string', attempts: 'number', used: 'boolean', sent_at: 'number', expires_at: 'number' },
});

export async function getCode(phone: string, nonce: string): Promise<StoredCode | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: smsKeys.smsCode(phone, nonce), ConsistentRead: true }));
  return codeFromItem(out.Item);
}

/** When `phone` was last sent a code for `network` (epoch ms), if within the item's lifetime. */
export async function lastSentTo(phone: string, network: string): Promise<number | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: smsKeys.smsRequester(phone, network), ConsistentRead: true }));
  return out.Item?.sent_at as number | undefined;
}

/**
 * Conditional delete run right after a failure, transient errors retried; one that still fails is
 * logged and left, and a failed condition means the item is no longer ours (nothing to undo).
 */
async function undoWrite(what: string, input: ConstructorParameters<typeof DeleteCommand>[0]): Promise<void> {
  await retryTransient(() => db.send(new DeleteCommand(input))).catch((error: Error) => {
    if (!isConditionalCheckFailed(error)) logger.warn(`${what} not removed`, { errorName: error.name });
  });
}

/**
 * Undoes a request whose SMS could not be sent: removes its code (only that code: a newer one of the
 * nonce is left alone) and its requester's send time (only that send), so that neither the nonce nor
 * the network waits for a code that never arrived. A removal that fails is logged and left: the
 * unsent code cannot be used, and it holds the resend wait for its interval.
 */
export async function undoUnsentCode(phone: string, network: string, code: StoredCode): Promise<void> {
  await Promise.all([
    undoWrite('unsent code', {
      TableName: TABLE(),
      Key: smsKeys.smsCode(phone, code.nonce),
      ConditionExpression: 'code_hash = :h',
      ExpressionAttributeValues: { ':h': code.code_hash },
    }),
    undoWrite('unsent send time', {
      TableName: TABLE(),
      Key: smsKeys.smsRequester(phone, network),
      ConditionExpression: 'sent_at = :at',
      ExpressionAttributeValues: { ':at': code.sent_at },
    }),
  ]);
}

/**
 * Counts a wrong try against the code of (phone, nonce) that was checked. Returns the attempts so
 * far, or undefined when that code is no longer the live one (replaced, used or already ended).
 */
export async function recordWrongTry(phone: string, nonce: string, codeHash: string): Promise<number | undefined> {
  try {
    const out = await retryOnConflict(() =>
      db.send(
        new UpdateCommand({
          TableName: TABLE(),
          Key: smsKeys.smsCode(phone, nonce),
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
 * Spends the code of (phone, nonce), as a transaction item: it succeeds once, for the live, unexpired
 * code that has wrong tries left, so two parallel requests with the right code cannot both sign in.
 * The phone's codes of other nonces are left to expire (docs/hub-api.md, "create_phone_account").
 */
export function consumeCodeItem(phone: string, nonce: string, codeHash: string, nowMs: number): TransactItem {
  return {
    Update: {
      TableName: TABLE(),
      Key: smsKeys.smsCode(phone, nonce),
      UpdateExpression: 'SET used = :yes, used_at = :now',
      ConditionExpression: 'code_hash = :h AND used = :no AND attempts < :max AND expires_at > :now',
      ExpressionAttributeValues: { ':yes': true, ':no': false, ':h': codeHash, ':max': MAX_CODE_ATTEMPTS, ':now': nowMs },
    },
  };
}

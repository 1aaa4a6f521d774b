import { BatchGetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../db/client.js';
import { hubItems } from '../db/hub-items.js';
import type { TransactItem } from '../db/transact.js';

/**
 * Ended sessions: a JWT is stateless until someone ends it (create_phone_account with
 * openid0/token0). The ended jti is kept until the token would have expired anyway (DynamoDB TTL).
 */
const sessionKey = (jti: string) => ({ pk: `SESSION#${jti}`, sk: 'ENDED' });

/** Ends a session, as a transaction item: written with the sign-in that replaces it (all or nothing). */
export function endSessionItem(jti: string, expiresAtEpochSeconds: number): TransactItem {
  return { Put: { TableName: tableNames.hub, Item: { ...sessionKey(jti), ttl: expiresAtEpochSeconds } } };
}

export async function endSession(jti: string, expiresAtEpochSeconds: number): Promise<void> {
  await db.send(new PutCommand(endSessionItem(jti, expiresAtEpochSeconds).Put!));
}

/**
 * Whether the session `jti` of account `sub` was ended, and whether the account is suspended
 * (`suspended_at` on its item, lib/admin/suspension.ts): one strongly consistent BatchGetItem of both
 * items, so suspension costs JWT authentication no extra request. Keys DynamoDB leaves unprocessed
 * (throttling) are asked again.
 */
export async function sessionStatus(jti: string, sub: string): Promise<{ ended: boolean; suspended: boolean }> {
  const session = sessionKey(jti);
  const account = hubItems.account(sub);
  let keys: Record<string, unknown>[] = [session, account];
  const found: Record<string, unknown>[] = [];
  for (let attempt = 0; keys.length > 0; attempt++) {
    if (attempt >= 5) throw Object.assign(new Error('session check: keys left unprocessed'), { name: 'ProvisionedThroughputExceededException' });
    const out = await db.send(
      new BatchGetCommand({ RequestItems: { [tableNames.hub]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'pk, sk, suspended_at' } } }),
    );
    found.push(...(out.Responses?.[tableNames.hub] ?? []));
    keys = (out.UnprocessedKeys?.[tableNames.hub]?.Keys ?? []) as Record<string, unknown>[];
  }
  const at = (key: { pk: string; sk: string }) => found.find((item) => item.pk === key.pk && item.sk === key.sk);
  return { ended: at(session) !== undefined, suspended: typeof at(account)?.suspended_at === 'string' };
}

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../db/client.js';
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

export async function isSessionEnded(jti: string): Promise<boolean> {
  const out = await db.send(new GetCommand({ TableName: tableNames.hub, Key: sessionKey(jti), ConsistentRead: true, ProjectionExpression: 'pk' }));
  return out.Item !== undefined;
}

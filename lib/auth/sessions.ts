import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../db/client.js';

/**
 * Ended sessions: a JWT is stateless until someone ends it (create_phone_account with
 * openid0/token0). The ended jti is kept until the token would have expired anyway (DynamoDB TTL).
 */
const sessionKey = (jti: string) => ({ pk: `SESSION#${jti}`, sk: 'ENDED' });

export async function endSession(jti: string, expiresAtEpochSeconds: number): Promise<void> {
  await db.send(new PutCommand({ TableName: tableNames.hub, Item: { ...sessionKey(jti), ttl: expiresAtEpochSeconds } }));
}

export async function isSessionEnded(jti: string): Promise<boolean> {
  const out = await db.send(new GetCommand({ TableName: tableNames.hub, Key: sessionKey(jti), ConsistentRead: true, ProjectionExpression: 'pk' }));
  return out.Item !== undefined;
}

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';

/** Created once per cold start and shared by every use case. */
const base = new DynamoDBClient({
  region: config.AWS_REGION,
  ...(config.DYNAMODB_ENDPOINT
    ? { endpoint: config.DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
    : {}),
  maxAttempts: 3,
});

export const db = DynamoDBDocumentClient.from(base, {
  marshallOptions: { removeUndefinedValues: true },
});

export const tableNames = {
  apiKeys: config.API_KEYS_TABLE,
  hub: config.HUB_TABLE,
};

export function isConditionalCheckFailed(error: unknown): boolean {
  return (error as Error)?.name === 'ConditionalCheckFailedException';
}

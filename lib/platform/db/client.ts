import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config.js';

/**
 * A document client on the configured endpoint (DynamoDB Local when DYNAMODB_ENDPOINT is set),
 * built on first use: importing a use case reads no setting, so the CDK app and the OpenAPI
 * generator can import the route modules (lib/transport/routes/index.ts) without a configured environment.
 */
export function createDocumentClient(): DynamoDBDocumentClient {
  let client: DynamoDBDocumentClient | undefined;
  return new Proxy({} as DynamoDBDocumentClient, {
    get: (_, name) => {
      client ??= buildDocumentClient();
      const value: unknown = Reflect.get(client, name, client);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(client) : value;
    },
  });
}

function buildDocumentClient(): DynamoDBDocumentClient {
  const base = new DynamoDBClient({
    region: config.AWS_REGION,
    ...(config.DYNAMODB_ENDPOINT
      ? { endpoint: config.DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
    maxAttempts: 3,
  });
  return DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
}

/** Created on first use, once per cold start, and shared by every use case. */
export const db = createDocumentClient();

/** The physical table names, as configured (read on use: a harness may configure them). */
export const tableNames = {
  get apiKeys(): string {
    return config.API_KEYS_TABLE;
  },
  get hub(): string {
    return config.HUB_TABLE;
  },
};

export function isConditionalCheckFailed(error: unknown): boolean {
  return (error as Error)?.name === 'ConditionalCheckFailedException';
}

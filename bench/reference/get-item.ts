import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * The floor of a cold start (docs/performance.md, "Cold starts"): a handler that makes one
 * consistent GetItem with the same SDK packages as the functions, bundled the same way
 * (bench/sections/coldstart.ts builds it with infra/constructs/lambda-bundle.ts's options). Nothing
 * a function imports beyond this is what its own cold start adds.
 */
const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));

export const handler = async (event: { pk: string; sk: string }) =>
  (await client.send(new GetCommand({ TableName: process.env.HUB_TABLE, Key: { pk: event.pk, sk: event.sk }, ConsistentRead: true }))).Item ?? null;

import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local.js';

let dynamo: DynamoDbLocal | undefined;

/** One in-memory DynamoDB Local for the whole run; each test file uses its own table prefix. */
export async function setup(project: TestProject) {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  dynamo = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
}

export async function teardown() {
  await dynamo?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

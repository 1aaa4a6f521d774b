import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { ADMIN_PHONE } from './constants.js';
import { releaseDynamoDbLocal, reserveDynamoEndpoint } from './dynamo.js';

// Runs before each test file is imported: the environment lib/config.ts is built from on first use
// (a test stack may configure its own on top, test/support/stack.ts): this file's DynamoDB Local
// (started when first needed: dynamo.ts) and its own tables.
const prefix = `t${randomBytes(5).toString('hex')}_`;
Object.assign(process.env, {
  EXPOHUB_RUNTIME: 'local',
  AWS_REGION: 'us-east-1',
  DYNAMODB_ENDPOINT: await reserveDynamoEndpoint(),
  TEST_TABLE_PREFIX: prefix,
  API_KEYS_TABLE: `${prefix}api_keys`,
  HUB_TABLE: `${prefix}hub`,
  JWT_SECRET: randomBytes(48).toString('base64url'),
  SMS_SENDER: 'console',
  ADMIN_PHONES: ADMIN_PHONE,
  ENFORCE_KEY_SCOPES: 'false',
  LOG_LEVEL: 'SILENT',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  // EMF lines on stdout are noise here; test/e2e/observability.test.ts turns them on to check them.
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

/** Items this file wrote through the functions' DynamoDB client (dynamo.ts decides by them when a worker's instance is replaced). */
let written = 0;
if (process.env.EXPOHUB_TEST_DYNAMO_POOL) {
  const { db } = await import('../../lib/db/client.js');
  db.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TransactItems?: unknown[]; RequestItems?: Record<string, unknown[]> };
      const command = context.commandName ?? '';
      if (/^(Put|Update|Delete)Item/.test(command)) written += 1;
      else if (command.startsWith('TransactWrite')) written += input.TransactItems?.length ?? 0;
      else if (command.startsWith('BatchWrite')) written += Object.values(input.RequestItems ?? {}).reduce((n, items) => n + items.length, 0);
      return next(args);
    },
    { step: 'initialize', name: 'countTestWrites' },
  );
}

// Registered first, so it runs after the file's own afterAll hooks (a stack stops before its database).
afterAll(() => releaseDynamoDbLocal(written));

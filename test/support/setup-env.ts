import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { ADMIN_PHONE } from './constants.js';
import { reserveDynamoEndpoint, stopDynamoDbLocal } from './dynamo.js';

// Runs before each test file is imported, so lib/config.ts (read once at import) sees a complete
// environment: this file's own DynamoDB Local (started when first needed: dynamo.ts) and its tables.
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

// Registered first, so it runs after the file's own afterAll hooks (a stack stops before its database).
afterAll(stopDynamoDbLocal);

import { randomBytes } from 'node:crypto';
import { ADMIN_PHONE } from './constants.js';

// Runs before each test file is imported: the environment lib/platform/config.ts is built from on first use
// (a test stack may configure its own on top, test/support/stack.ts), with this file's own tables.
// The database tiers add their DynamoDB Local (setup-db.ts).
const prefix = `t${randomBytes(5).toString('hex')}_`;
Object.assign(process.env, {
  EXPOHUB_RUNTIME: 'local',
  AWS_REGION: 'us-east-1',
  TEST_TABLE_PREFIX: prefix,
  API_KEYS_TABLE: `${prefix}api_keys`,
  HUB_TABLE: `${prefix}hub`,
  JWT_SECRET: randomBytes(48).toString('base64url'),
  SMS_SENDER: 'console',
  ADMIN_PHONES: ADMIN_PHONE,
  ENFORCE_KEY_SCOPES: 'false',
  LOG_LEVEL: 'SILENT',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  // EMF lines on stdout are noise here; test/api/observability.test.ts turns them on to check them.
  POWERTOOLS_METRICS_DISABLED: 'true',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});

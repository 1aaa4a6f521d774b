import { assertJavaAvailable } from '../../infra/local/dynamodb-local.js';

/**
 * Checks once, with a clear message, that DynamoDB Local can run. Each test file starts its own
 * DynamoDB Local (test/support/dynamo.ts): one shared by every file made a file's writes slower the
 * more stream records earlier files had left (DynamoDB Local looks up a stream's shard by scanning
 * every stream's records written before it, on every write to a table with a stream).
 */
export function setup() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  assertJavaAvailable();
}

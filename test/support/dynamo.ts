import { freePort, startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local.js';

/**
 * This test file's own in-memory DynamoDB Local. Its endpoint is fixed before any module reads
 * lib/config.ts (setup-env.ts); the JVM starts only when the file first needs tables
 * (createTestTables, startTestStack), so files that never touch the database do not pay for it.
 *
 * Why one per file: DynamoDB Local finds a stream's current shard, on every write to a table with a
 * stream, by scanning the stream records of every table written before that stream's first record.
 * On one instance shared by the whole run, a file started after a seeding file paid that scan
 * (50-100 ms for 100,000 records) on each write.
 */
let port: number | undefined;
let running: Promise<DynamoDbLocal> | undefined;
/**
 * A test file's instance lives seconds to a minute: the client compiler only and the serial
 * collector start it in about 2.5 s instead of 4 and do not slow a short run (measured: 1,000 puts
 * and 1,000 queries on the hub table took 11 s with the defaults, 10.9 s with these).
 */
const JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

export async function reserveDynamoEndpoint(): Promise<string> {
  port ??= await freePort();
  return `http://127.0.0.1:${port}`;
}

/** Starts this file's DynamoDB Local once (later calls wait for the same start). */
export async function ensureDynamoDbLocal(): Promise<string> {
  const endpoint = await reserveDynamoEndpoint();
  running ??= startDynamoDbLocal({ port, jvmOptions: JVM_OPTIONS });
  await running;
  return endpoint;
}

export async function stopDynamoDbLocal(): Promise<void> {
  const started = running;
  running = undefined;
  await (await started)?.stop();
}

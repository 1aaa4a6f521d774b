import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertJavaAvailable, killDynamoDbLocal } from '../../local/dynamodb-local.js';

/**
 * Once per run (vitest calls it for each project that lists it, in one process: the first call does
 * the work, the last teardown undoes it): checks, with a clear message, that DynamoDB Local can run,
 * and makes the pool folder in which each worker records the DynamoDB Local its files share
 * (test/support/dynamo.ts). The teardown stops them all (and their watchdogs: each is its JVM's
 * process group); if this process is killed first, their watchdogs end them.
 */
const state = globalThis as { expohubTestPool?: { dir: string; users: number } };

export function setup() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (!state.expohubTestPool) {
    assertJavaAvailable();
    state.expohubTestPool = { dir: mkdtempSync(join(tmpdir(), 'expohub-dynamo-')), users: 0 };
    process.env.EXPOHUB_TEST_DYNAMO_POOL = state.expohubTestPool.dir;
    // The pool's instances end with this process even when it is killed and the teardown never runs.
    process.env.EXPOHUB_TEST_RUNNER_PID = String(process.pid);
  }
  state.expohubTestPool.users++;
  return teardown;
}

function teardown() {
  const pool = state.expohubTestPool;
  if (!pool || --pool.users > 0) return;
  for (const file of readdirSync(pool.dir)) {
    const { pid } = JSON.parse(readFileSync(join(pool.dir, file), 'utf8')) as { pid?: number };
    if (pid) killDynamoDbLocal(pid);
  }
  rmSync(pool.dir, { recursive: true, force: true });
  delete process.env.EXPOHUB_TEST_DYNAMO_POOL;
  delete process.env.EXPOHUB_TEST_RUNNER_PID;
  state.expohubTestPool = undefined;
}

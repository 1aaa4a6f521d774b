import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, killDynamoDbLocal, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local.js';

/**
 * The DynamoDB Local of a test file. Each file has its own tables (a random prefix, setup-env.ts);
 * the JVM under them is shared by the files that one vitest worker runs one after the other, because
 * starting it costs about 3 s of CPU, as much as a small file's tests.
 *
 * Why not one instance for a whole run, or for a worker's whole share of it: DynamoDB Local finds a
 * stream's current shard, on every write to a table with a stream, by scanning the stream records of
 * every table written before that stream's first record. Writes to a new table are about 2 ms slower
 * per 3,000 records written before (measured: 2 ms a Put on a fresh instance, 16 ms after 20,000
 * records elsewhere; deleting the old tables does not help). So a worker's instance serves files
 * until they have written WRITES_PER_INSTANCE items, then the next file starts a new one.
 *
 * The worker's instance is recorded in the run's pool folder (EXPOHUB_TEST_DYNAMO_POOL, made by
 * global-setup.ts, which stops every instance at the end of the run), one file per worker slot
 * (VITEST_POOL_ID: one file at a time per slot). It outlives the worker process that started it and
 * ends with the run's main process (EXPOHUB_TEST_RUNNER_PID), also when that one is killed and the
 * teardown never runs (local/dynamodb-local.ts, `ownerPid`). Without a pool (a file run by
 * something else than vitest's projects) the file starts its own instance, which ends with the file's
 * process at the latest.
 */
const WRITES_PER_INSTANCE = 5_000;
/**
 * A test file's instance lives seconds to a minute: the client compiler only and the serial
 * collector start it in about 2.5 s instead of 4 and do not slow a short run (measured: 1,000 puts
 * and 1,000 queries on the hub table took 11 s with the defaults, 10.9 s with these).
 */
const JVM_OPTIONS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC';

interface PoolEntry {
  port: number;
  pid?: number;
  /** Items written by the files that used this instance so far (each file adds its own when it ends). */
  writes: number;
}

const pool = process.env.EXPOHUB_TEST_DYNAMO_POOL;
/** The test run's main process (global-setup.ts): a worker's instance ends with it, however it ends. */
const runnerPid = Number(process.env.EXPOHUB_TEST_RUNNER_PID) || undefined;
const entryFile = pool ? join(pool, `worker-${process.env.VITEST_POOL_ID ?? '0'}.json`) : undefined;

const alive = (pid: number | undefined) => {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const readEntry = (): PoolEntry | undefined => (entryFile && existsSync(entryFile) ? (JSON.parse(readFileSync(entryFile, 'utf8')) as PoolEntry) : undefined);
const writeEntry = (entry: PoolEntry) => entryFile && writeFileSync(entryFile, JSON.stringify(entry));

let port: number | undefined;
/** Set when this file uses the worker's instance (else it owns one). */
let pooled: PoolEntry | undefined;
let own: Promise<DynamoDbLocal> | undefined;
let started: Promise<unknown> | undefined;

/** This file's endpoint, fixed before lib/ is first used (setup-env.ts); the JVM starts on first need. */
export async function reserveDynamoEndpoint(): Promise<string> {
  if (port === undefined) {
    const entry = readEntry();
    if (entryFile && entry && alive(entry.pid) && entry.writes < WRITES_PER_INSTANCE) {
      pooled = entry;
    } else if (entryFile) {
      if (entry?.pid && alive(entry.pid)) killDynamoDbLocal(entry.pid);
      pooled = { port: await freePort(), writes: 0 };
      writeEntry(pooled);
    }
    port = pooled?.port ?? (await freePort());
  }
  return `http://127.0.0.1:${port}`;
}

/** Starts this file's DynamoDB Local when it is not running yet (later calls wait for the same start). */
export async function ensureDynamoDbLocal(): Promise<string> {
  const endpoint = await reserveDynamoEndpoint();
  if (pooled) {
    const entry = pooled;
    started ??= alive(entry.pid)
      ? Promise.resolve()
      : startDynamoDbLocal({ port, jvmOptions: JVM_OPTIONS, ownerPid: runnerPid }).then((instance) => {
          entry.pid = instance.pid;
          writeEntry(entry);
        });
  } else {
    own ??= startDynamoDbLocal({ port, jvmOptions: JVM_OPTIONS });
    started = own;
  }
  await started;
  return endpoint;
}

/** At the end of the file: a worker's instance records what the file wrote; a file's own instance stops. */
export async function releaseDynamoDbLocal(itemsWritten: number): Promise<void> {
  if (pooled) {
    if (started) writeEntry({ ...pooled, writes: pooled.writes + itemsWritten });
    return;
  }
  const instance = own;
  own = started = undefined;
  await (await instance)?.stop();
}

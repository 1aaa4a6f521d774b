import { randomBytes } from 'node:crypto';
import { createTables } from '../local/create-tables.js';
import { startDynamoDbLocal, type DynamoDbLocal } from '../local/dynamodb-local.js';
import { startStreamPoller } from '../local/stream-poller.js';

/**
 * The settings every benchmark process uses. Rate limits are raised so that loops of sign-ups and
 * comments measure the operation rather than its 429: a limit check costs the same requests
 * whatever the limit is, so the cost figures are unchanged.
 */
export function benchSettings(dynamoEndpoint: string, tables: Record<string, string>, jwtSecret: string): Record<string, string> {
  return {
    EXPOHUB_RUNTIME: 'local',
    AWS_REGION: 'us-east-1',
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    JWT_SECRET: jwtSecret,
    SMS_SENDER: 'console',
    ADMIN_PHONES: '+8613800138000',
    SHARE_BASE_URL: 'http://127.0.0.1:3000',
    RATE_SMS_PHONE_HOURLY: '1000000',
    RATE_SMS_PHONE_DAILY: '1000000',
    RATE_SMS_PHONE_NETWORK_HOURLY: '1000000',
    RATE_SMS_PHONE_NETWORK_DAILY: '1000000',
    RATE_SMS_IP_HOURLY: '1000000',
    RATE_COMMENTS_PER_MINUTE: '1000000',
    RATE_SHARES_IP_HOURLY: '1000000',
    MAX_KEYS_PER_USER: '1000000',
    // The per-key limit at its maximum: the sections call one key far more often than 600 times a
    // minute; what they measure (the counter's request) is the same whatever the limit. The keylimit
    // section sets its own limits per key.
    KEY_RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'SILENT',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    ...tables,
  };
}

export interface BenchEnvironment {
  dynamo: DynamoDbLocal;
  settings: Record<string, string>;
  /** Waits until the stream processor has applied everything written so far (derived counters converged). */
  settleStreams(): Promise<void>;
  /** Holds the stream processor back (and lets it go again): the hotspots model hands records over in batches itself. */
  pauseStreams(): Promise<void>;
  resumeStreams(): void;
  stop(): Promise<void>;
}

/**
 * A DynamoDB Local of the bench's own (in memory, gone when the bench ends) with the tables of
 * lib/platform/db/tables.ts, and process.env set for it. Call before importing anything from lib/: config.ts
 * reads the environment once, at import.
 */
export async function startBenchEnvironment(): Promise<BenchEnvironment> {
  // Lambda runs Node 22; the SDK's notice about Node 20 here is noise.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const dynamo = await startDynamoDbLocal();
  try {
    const tables = await createTables(dynamo.endpoint, 'bench_');
    const settings = benchSettings(dynamo.endpoint, tables, randomBytes(48).toString('base64url'));
    Object.assign(process.env, settings);
    // The stream processor, as `npm start` runs it (imported now: lib/platform/config.ts reads the environment at import).
    const { applyStreamConsumers } = await import('../local/stream-consumers.js');
    const streams = await startStreamPoller({ endpoint: dynamo.endpoint, table: tables.HUB_TABLE, apply: applyStreamConsumers });
    return {
      dynamo,
      settings,
      settleStreams: () => streams.settle(),
      pauseStreams: () => streams.pause(),
      resumeStreams: () => streams.resume(),
      stop: async () => {
        await streams.stop();
        await dynamo.stop();
      },
    };
  } catch (error) {
    await dynamo.stop();
    throw error;
  }
}

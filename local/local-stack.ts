import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { configure } from '../lib/platform/config.js';
import { installConsoleSmsSender } from '../lib/platform/sms/sender.js';
import { consoleSmsSender } from './sms-outbox.js';
import { createTables } from './create-tables.js';
import { DEV_ROUTES } from './dev-routes.js';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.js';
import { startLocalServer, type DevRoute, type LocalServer } from './server.js';
import { startStreamPoller, type StreamPoller } from './stream-poller.js';

export interface LocalStackOptions {
  port?: number;
  /** A folder that persists between runs, or 'memory' to keep nothing on disk. */
  dataDir?: string;
  /** Use an already running DynamoDB Local instead of starting one (tests share one). */
  dynamoEndpoint?: string;
  /** Prefix for the table names (tests isolate themselves with it). */
  tablePrefix?: string;
  /** Extra environment for the handlers (rate limits, ENFORCE_KEY_SCOPES, ...); undefined removes a variable. */
  env?: Record<string, string | undefined>;
  staticDir?: string;
  devRoutes?: DevRoute[];
  /**
   * How the stream processor runs: `background` (npm start: it polls, as the deployed event source
   * mapping does) or `on-demand` (tests: records are applied when `streams.settle()` is called, so a
   * test reads derived counters exactly when it asks for them, and nothing polls meanwhile).
   */
  streams?: 'background' | 'on-demand';
  /** false: no HTTP server (requests go in-process through invokeGateway: the api-tier tests). */
  http?: boolean;
  /**
   * Runs once the tables, the configuration and the stream processor are up and before the HTTP
   * server listens (npm start seeds the demo catalog here): the first request the server answers,
   * `/api/v1/health` included, already finds what it wrote.
   */
  prepare?: () => Promise<void>;
}

export interface LocalStack {
  /** The HTTP server's URL (`inprocess:` without one). */
  url: string;
  dynamoEndpoint: string;
  server: LocalServer | undefined;
  /** The hub table's stream processor (derived counters), as the deployed stream Lambda. */
  streams: StreamPoller;
  stop(): Promise<void>;
}

/** npm start rebuilds the feed's learned model this often (deployed: hourly, infra/constructs/feed-model.ts): a like joins it within a minute. */
const LOCAL_MODEL_REFRESH_MS = 60_000;

export const LOCAL_DEFAULTS = {
  ADMIN_PHONES: '+8613800138000',
  SHARE_BASE_URL: 'http://127.0.0.1:3000',
};

/** The local JWT secret: generated on first start and kept in the data directory (never committed). */
export function localJwtSecret(dataDir: string): string {
  if (dataDir === 'memory') return randomBytes(48).toString('base64url');
  const file = join(resolve(dataDir), 'jwt-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(resolve(dataDir), { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * Everything `npm start` runs: DynamoDB Local, the tables from the shared definitions, and the HTTP
 * server in front of the same handlers the stack deploys, configured with this environment
 * (lib/platform/config.ts `configure`).
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const dataDir = options.dataDir ?? '.data';
  // Node 20 runs the local stack here; Lambda runs Node 22, so the SDK's Node 20 notice is noise.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // No CloudWatch here to read EMF: metrics stay off the console unless asked for (a test that checks them).
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  let dynamo: DynamoDbLocal | undefined;
  const dynamoEndpoint =
    options.dynamoEndpoint ??
    (dynamo = await startDynamoDbLocal({ dataDir: dataDir === 'memory' ? undefined : join(resolve(dataDir), 'dynamodb') })).endpoint;
  let streams: StreamPoller | undefined;
  try {
    const tableNames = await createTables(dynamoEndpoint, options.tablePrefix ?? '');
    const env: Record<string, string | undefined> = {
      EXPOHUB_RUNTIME: 'local',
      AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
      DYNAMODB_ENDPOINT: dynamoEndpoint,
      // A JWT_SECRET_ARN (tests against a Secrets Manager stand-in) is read as deployed.
      ...((options.env?.JWT_SECRET_ARN ?? process.env.JWT_SECRET_ARN) ? { JWT_SECRET: undefined } : { JWT_SECRET: process.env.JWT_SECRET ?? localJwtSecret(dataDir) }),
      SMS_SENDER: 'console',
      ADMIN_PHONES: process.env.ADMIN_PHONES ?? LOCAL_DEFAULTS.ADMIN_PHONES,
      ...tableNames,
      ...options.env,
    };
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    // The handlers read their settings from lib/platform/config.ts: this environment from now on.
    configure(process.env);
    installConsoleSmsSender(consoleSmsSender);
    const { applyStreamConsumers } = await import('./stream-consumers.js');
    const poller = (streams = await startStreamPoller({ endpoint: dynamoEndpoint, table: tableNames.HUB_TABLE, apply: applyStreamConsumers, background: options.streams !== 'on-demand' }));
    await options.prepare?.();
    // As deployed, the feed's learned model is rebuilt on a schedule (tests refresh it when they need it).
    // Imported here, like the stream consumers: the model's code reads the configuration set above.
    const model = options.streams !== 'on-demand' ? (await import('./model-schedule.js')).startModelSchedule(LOCAL_MODEL_REFRESH_MS) : undefined;
    const server =
      options.http === false
        ? undefined
        : await startLocalServer({
            port: options.port ?? 0,
            staticDir: options.staticDir,
            devRoutes: options.devRoutes ?? DEV_ROUTES,
          });
    return {
      url: server?.url ?? `inprocess:${randomBytes(6).toString('hex')}`,
      dynamoEndpoint,
      server,
      streams: poller,
      // In this order: requests in flight finish against the store, then the stream processor lets go, then the store stops.
      stop: async () => {
        try {
          await server?.close();
          await model?.stop();
          await poller.stop();
        } finally {
          await dynamo?.stop();
        }
      },
    };
  } catch (error) {
    await streams?.stop();
    await dynamo?.stop();
    throw error;
  }
}

import { ROUTE_MODULES, routeEntry, type RouteFunction } from '../lib/transport/routes/index.js';
import type { FunctionNeeds } from '../lib/transport/http/define-route.js';
import type { RouteSpec as HttpRouteSpec } from '../lib/transport/http/routes.js';

/**
 * The deployed functions: their entry files, IAM grants and sizes. A function that serves HTTP
 * routes is declared in its route module (lib/transport/routes/, listed in
 * lib/transport/routes/index.ts), which is its entry; the others (the authorizer, the stream
 * consumers, the scheduled jobs) here. The CDK stack builds exactly these, and the local server
 * serves the routes through the same handlers.
 */
export type { DynamoAction, TableGrant } from '../lib/transport/http/define-route.js';

export interface FunctionSpec extends FunctionNeeds {
  /** Entry file, relative to the project root; it exports `handler`. */
  entry: string;
}

/** The functions without a route. */
const OTHER_FUNCTIONS = {
  authorizer: {
    entry: 'functions/authorizer.ts',
    description: 'Lambda authorizer: verifies a JWT or an access key (no caching)',
    // Access keys: one conditional UpdateItem of the hash guard (state, rate limit, usage,
    // last_used_at). Login tokens: the ended-session marker and the account's suspension, one
    // BatchGetItem. A key's first refusal in a minute: its audit event with the guard's mark (a
    // transaction: PutItem on the hub table, UpdateItem on the guard).
    tables: { apiKeys: { actions: ['UpdateItem'] }, hub: { actions: ['BatchGetItem', 'PutItem'] } },
    jwtSecret: true,
  },
  // No route: the hub table's stream invokes it (infra/constructs/stream-counters.ts).
  streamCounters: {
    entry: 'functions/stream-counters.ts',
    description: "Derived counters from the hub table's stream: like and comment counts, trend, liked_count",
    // Stream read actions come with the event source, on the table's stream only (stream-counters.ts);
    // BatchGetItem: when the videos' trend keys were last moved (lib/features/streams/trend-keys.ts).
    tables: { hub: { actions: ['BatchGetItem', 'PutItem', 'UpdateItem'] } },
    timeoutSeconds: 60,
  },
  // No route: the hub table's stream, filtered to deletion records still erasing (infra/constructs/erasure.ts).
  eraseAccounts: {
    entry: 'functions/erase-accounts.ts',
    description: "The erasure of deleted accounts, run after run from the deletion record's changes",
    // The account's partition (Query), its comments (gsi1) and videos (gsi2); relations ended and keys
    // removed in transactions; everything else deleted in batches; the record's progress (UpdateItem).
    tables: {
      apiKeys: { actions: ['Query', 'DeleteItem', 'UpdateItem'] },
      hub: { actions: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'], indexes: ['gsi1', 'gsi2'] },
    },
    memoryMb: 512,
    timeoutSeconds: 300,
  },
  // No route: every 5 minutes (infra/constructs/monitoring.ts): the age of the oldest open report.
  reportAge: {
    entry: 'functions/report-age.ts',
    description: 'Publishes the age of the oldest open report (alarm at 20 hours)',
    tables: { hub: { actions: [], indexes: ['gsi1'] } },
  },
  // No route: every 10 minutes (infra/constructs/erasure.ts).
  sweepErasures: {
    entry: 'functions/sweep-erasures.ts',
    description: 'Hands stalled erasures to the stream again; counts overdue ones',
    tables: { hub: { actions: ['GetItem', 'UpdateItem'], indexes: ['gsi1'] } },
    timeoutSeconds: 60,
  },
  // No route: every hour (infra/constructs/feed-model.ts): the feed's learned model
  // (lib/features/recommend/model-refresh.ts). The catalog from gsi3, every video's likers from gsi2 and
  // each liker's view history from gsi1 (Query), their feed states and the previous lists
  // (BatchGetItem), the changed lists written (BatchWriteItem).
  refreshModel: {
    entry: 'functions/refresh-model.ts',
    description: "Retrains the feed's learned model on every like, view and dislike",
    tables: { hub: { actions: ['BatchGetItem', 'BatchWriteItem'], indexes: ['gsi1', 'gsi2', 'gsi3'] } },
    // One full vCPU (Lambda gives one at 1,769 MB): the training is a single-threaded dense solve,
    // n^3 / 2 multiply-adds for n videos, so it runs at one vCPU's speed and more memory would buy only
    // vCPUs it cannot use; 1,769 MB also holds the matrix (8 n^2 bytes, 288 MB at ITEM_MODEL.maxVideos)
    // and 1M interactions with room to spare. 15 minutes, Lambda's most: the solve at maxVideos takes
    // minutes (`npm run bench -- --only training`, docs/feed.md "Training cost").
    memoryMb: 1769,
    timeoutSeconds: 900,
  },
  // No route: every 5 minutes (infra/constructs/synthetic-check.ts): the checks of `npm run smoke` through
  // the distribution with the stack's canary key (lib/features/smoke/canary-key.ts), which it makes sure of
  // first: its hash guard (GetItem); when missing, the create of any key (the id counter's UpdateItem,
  // the record and the guard Put, the quota Update, the owner's ConditionCheck on hub; a refused create
  // gives its id back: UpdateItem or DeleteItem).
  syntheticCheck: {
    entry: 'functions/synthetic-check.ts',
    description: 'The synthetic check: health, the feed, the key checks with the canary key, every 5 minutes',
    tables: { apiKeys: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] }, hub: { actions: ['ConditionCheckItem'] } },
    memoryMb: 256,
    secrets: true,
    // Eight checks of at most 10 s each, one after the other, and the key's provisioning.
    timeoutSeconds: 120,
  },
} satisfies Record<string, FunctionSpec>;

const ROUTE_FUNCTIONS = Object.fromEntries(ROUTE_MODULES.map((m) => [m.name, { entry: routeEntry(m.name), ...m.needs }])) as Record<RouteFunction, FunctionSpec>;

const { authorizer, ...jobs } = OTHER_FUNCTIONS;
export const FUNCTIONS = { authorizer, ...ROUTE_FUNCTIONS, ...jobs };

export type FunctionName = keyof typeof FUNCTIONS;

export { ROUTES, type RouteFunction } from '../lib/transport/routes/index.js';
export { usesAuthorizer, type RouteAuth } from '../lib/transport/http/routes.js';
/** A row of the route table (lib/transport/routes/index.ts). */
export type RouteSpec = HttpRouteSpec<RouteFunction>;

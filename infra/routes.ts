import type { RouteFunction } from '../lib/transport/http/routes.js';
/**
 * The deployed functions: their entry files, IAM grants and sizes. Their HTTP routes, with who may
 * call each, are declared in lib/transport/http/routes.ts (re-exported here): the CDK stack builds exactly
 * these, and the local server serves exactly these through the same handlers.
 */
/**
 * The DynamoDB actions a function may call on a table (IAM names). A transaction needs the action of
 * each of its items (PutItem, UpdateItem, DeleteItem, ConditionCheckItem); there is no Scan: request
 * paths query, never scan (docs/data-model.md).
 */
export type DynamoAction = 'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem' | 'ConditionCheckItem';

export interface TableGrant {
  actions: DynamoAction[];
  /** Global secondary indexes the function queries (Query on `<table>/index/<name>`); none when absent. */
  indexes?: string[];
}

export interface FunctionSpec {
  /** Entry file, relative to the project root; it exports `handler`. */
  entry: string;
  description: string;
  /**
   * Exactly the DynamoDB actions the function's code path sends, per table (test/infra/grants.test.ts
   * checks them against the commands in the function's bundle).
   */
  tables: { apiKeys?: TableGrant; hub?: TableGrant };
  /** Needs the signing secret (issues or verifies login tokens, signs cursors). */
  jwtSecret?: boolean;
  /** Sends SMS through Amazon SNS. */
  sms?: boolean;
  /** Reads a secret other than the signing and origin secrets (the canary key's): gets the secrets extension (infra/constructs/expohub-function.ts). */
  secrets?: boolean;
  memoryMb?: number;
  timeoutSeconds?: number;
}

export const FUNCTIONS = {
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
  health: { entry: 'functions/health.ts', description: 'Liveness probe', tables: {} },
  // Serves a document generated at build time (npm run openapi): no table, no secret.
  openapi: { entry: 'functions/openapi.ts', description: 'The OpenAPI document and the API reference page', tables: {} },
  hub: {
    entry: 'functions/hub.ts',
    description: 'The hub: every GET /api/v1?do=<operation>',
    // apiKeys: authenticating an access key per operation, as the authorizer does. hub: every `do`
    // operation (reads, likes and follows in transactions with condition checks, batches, the feed's
    // queries on gsi1-gsi3).
    tables: {
      apiKeys: { actions: ['GetItem', 'UpdateItem'] },
      hub: {
        actions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'ConditionCheckItem'],
        indexes: ['gsi1', 'gsi2', 'gsi3'],
      },
    },
    jwtSecret: true,
    sms: true,
  },
  // hub: the audit event, stored in the key write's transaction (PutItem); create also checks there
  // that the owner's account is not suspended (ConditionCheckItem).
  createKey: {
    entry: 'functions/create-key.ts',
    description: 'Create an access key',
    tables: { apiKeys: { actions: ['PutItem', 'UpdateItem', 'DeleteItem'] }, hub: { actions: ['ConditionCheckItem', 'PutItem'] } },
  },
  // The records, then their guards' last_used_at (BatchGetItem).
  listKeys: { entry: 'functions/list-keys.ts', description: "List the caller's access keys", tables: { apiKeys: { actions: ['Query', 'BatchGetItem'] } } },
  revokeKey: { entry: 'functions/revoke-key.ts', description: 'Revoke an access key', tables: { apiKeys: { actions: ['GetItem', 'UpdateItem'] }, hub: { actions: ['PutItem'] } } },
  deleteKey: {
    entry: 'functions/delete-key.ts',
    description: 'Delete an access key',
    tables: { apiKeys: { actions: ['GetItem', 'DeleteItem', 'UpdateItem'] }, hub: { actions: ['PutItem'] } },
  },
  keyUsage: { entry: 'functions/key-usage.ts', description: "An access key's requests per day, last 30 days", tables: { apiKeys: { actions: ['GetItem', 'Query'] } } },
  // The guard's conditional update; a first refusal's audit event with the guard's mark (hub PutItem).
  verifyKey: {
    entry: 'functions/verify-key.ts',
    description: 'Verify an access key (public)',
    tables: { apiKeys: { actions: ['UpdateItem'] }, hub: { actions: ['PutItem'] } },
  },
  // The account's accepted terms version (one GetItem of the account item) and, for a login token, the
  // profile values the filter holds (one Query of its partition's held range): docs/moderation.md.
  me: { entry: 'functions/me.ts', description: 'Who the credential is, the terms the account accepted, its held profile values', tables: { hub: { actions: ['GetItem', 'Query'] } } },
  // Configuration only: the current terms version and the contact for reports.
  policies: { entry: 'functions/policies.ts', description: 'The current terms version and the contact for reports', tables: {} },
  // The account's data export: the account (GetItem), one range at a time of its partition, its
  // comments (gsi1), shares (gsi2, then BatchGet) and videos (gsi2), its keys (apiKeys Query, their
  // guards' BatchGet) and their usage (the guard's GetItem, the old minute counters' Query); signed
  // cursors. docs/protected-api.md, "Download my data".
  myData: {
    entry: 'functions/my-data.ts',
    description: "Download my data: everything stored about the caller's account, paged (login token only)",
    tables: { apiKeys: { actions: ['Query', 'BatchGetItem', 'GetItem'] }, hub: { actions: ['GetItem', 'BatchGetItem', 'Query'], indexes: ['gsi1', 'gsi2'] } },
    jwtSecret: true,
  },
  // The roles read, then written with the audit event in one transaction conditioned on them.
  setRoles: { entry: 'functions/set-roles.ts', description: "Set an account's stored roles (admin JWT only)", tables: { hub: { actions: ['GetItem', 'UpdateItem', 'PutItem'] } } },
  // The caller's audit trail: one Query of the account's partition per page; signed cursors.
  // Ends the calling token's session: the ended marker and its audit event in one transaction.
  signOut: { entry: 'functions/sign-out.ts', description: "End the calling login token's session (sign out)", tables: { hub: { actions: ['PutItem', 'ConditionCheckItem'] } }, jwtSecret: true },
  listAudit: { entry: 'functions/list-audit.ts', description: "The caller's audit events, newest first", tables: { hub: { actions: ['Query'] } }, jwtSecret: true },
  // Administration (admin JWT only). Each action stores an audit event on the affected account (hub PutItem).
  adminListKeys: {
    entry: 'functions/admin-list-keys.ts',
    description: "List any account's access keys (admin JWT only)",
    tables: { apiKeys: { actions: ['Query', 'BatchGetItem'] }, hub: { actions: ['GetItem', 'PutItem'] } },
  },
  adminRevokeKey: {
    entry: 'functions/admin-revoke-key.ts',
    description: 'Revoke any access key by id (admin JWT only)',
    // The owner by the key_id index, then the record (GetItem) and the revoke transaction.
    tables: { apiKeys: { actions: ['GetItem', 'UpdateItem'], indexes: ['key_id-index'] }, hub: { actions: ['PutItem'] } },
  },
  adminLookupKey: {
    entry: 'functions/admin-lookup-key.ts',
    description: 'Find (and optionally revoke) a key by its plaintext (admin JWT only)',
    // The hash guard and the record (GetItem), the revoke transaction (UpdateItem).
    tables: { apiKeys: { actions: ['GetItem', 'UpdateItem'] }, hub: { actions: ['PutItem'] } },
  },
  suspendAccount: {
    entry: 'functions/suspend-account.ts',
    description: 'Suspend an account: its sessions and keys get 401 (admin JWT only)',
    // One transaction: the account's suspended_at (hub), its event (hub), the key count check and each
    // guard's marker (apiKeys), after a Query of the keys; the account (GetItem) when it was refused;
    // the fallback marks guards one by one (UpdateItem).
    tables: { apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] }, hub: { actions: ['GetItem', 'UpdateItem', 'PutItem'] } },
    timeoutSeconds: 30,
  },
  reinstateAccount: {
    entry: 'functions/reinstate-account.ts',
    description: 'Reinstate a suspended account (admin JWT only)',
    tables: { apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] }, hub: { actions: ['GetItem', 'UpdateItem', 'PutItem'] } },
    timeoutSeconds: 30,
  },
  // Account deletion (docs/accounts.md): the deletion's transaction (the account, the phone link, the
  // record and its event on the hub table; the key count check and each guard's mark on apiKeys),
  // after a Query of the keys; the fallback marks guards one by one.
  deleteAccount: {
    entry: 'functions/delete-account.ts',
    description: 'Delete my account (login JWT only): sessions and keys refused at once, erasure in the background',
    tables: { apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] }, hub: { actions: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'] } },
    timeoutSeconds: 30,
  },
  adminDeleteAccount: {
    entry: 'functions/admin-delete-account.ts',
    description: 'Delete an account (admin JWT only)',
    tables: { apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] }, hub: { actions: ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'] } },
    timeoutSeconds: 30,
  },
  // The filter's term list (docs/moderation.md, "Filter"): one item, read strongly, written with its
  // audit event in one transaction conditioned on the version read.
  listFilterTerms: { entry: 'functions/list-filter-terms.ts', description: 'The filter term list (admin JWT only)', tables: { hub: { actions: ['GetItem'] } } },
  putFilterTerms: { entry: 'functions/put-filter-terms.ts', description: 'Add or replace filter terms (admin JWT only)', tables: { hub: { actions: ['GetItem', 'PutItem'] } } },
  deleteFilterTerm: { entry: 'functions/delete-filter-term.ts', description: 'Remove a filter term (admin JWT only)', tables: { hub: { actions: ['GetItem', 'PutItem'] } } },
  deletionStatus: { entry: 'functions/deletion-status.ts', description: "A deletion's progress (no credential: the id is unguessable)", tables: { hub: { actions: ['GetItem'] } } },
  publishVideo: {
    entry: 'functions/publish-video.ts',
    description: 'Publish a video (stored role editor or admin)',
    tables: { hub: { actions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'ConditionCheckItem'] } },
  },
  // The exports sign their cursors with a key derived from the signing secret. They page through
  // indexes only (lib/features/export/visibility.ts): comments by gsi2 (admin) or gsi1 (own), accounts by gsi1.
  exportComments: { entry: 'functions/export-comments.ts', description: 'Export comments, paged (row rules by stored role)', tables: { hub: { actions: ['GetItem', 'BatchGetItem'], indexes: ['gsi1', 'gsi2'] } }, jwtSecret: true },
  exportAccounts: { entry: 'functions/export-accounts.ts', description: 'Export accounts, paged (row and column rules by stored role)', tables: { hub: { actions: ['GetItem', 'BatchGetItem'], indexes: ['gsi1'] } }, jwtSecret: true },
  // Moderation (docs/moderation.md): a moderator's or an admin's login token only.
  moderationQueue: {
    entry: 'functions/moderation-queue.ts',
    description: 'The moderation queue: open report cases, oldest first (moderator JWT only)',
    // The open cases' index (gsi1, Query), then the cases and their authors (BatchGetItem); signed cursors.
    tables: { hub: { actions: ['BatchGetItem'], indexes: ['gsi1'] } },
    jwtSecret: true,
  },
  moderationAction: {
    entry: 'functions/moderation-action.ts',
    description: 'A moderation decision: remove, dismiss, suspend (moderator JWT only)',
    // The case, the comment's lookup, the video, the author (GetItem, BatchGetItem); one transaction of
    // the case, the content change and the audit event (Update, Put, Delete); a suspension as the
    // admin's (its key markers on apiKeys, after a Query of the keys). Approving held content posts
    // the comment as comment_set does (its transaction checks the video author's block list:
    // ConditionCheckItem) or publishes the video as POST /api/v1/videos does (search postings:
    // BatchWriteItem).
    tables: {
      apiKeys: { actions: ['Query', 'UpdateItem', 'ConditionCheckItem'] },
      hub: { actions: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem', 'DeleteItem', 'ConditionCheckItem', 'BatchWriteItem'] },
    },
    timeoutSeconds: 30,
  },
  sharePage: { entry: 'functions/share-page.ts', description: 'The share page: GET /s/{shareid}, HTML', tables: { hub: { actions: ['BatchGetItem', 'UpdateItem'] } } },
  wellKnown: { entry: 'functions/well-known.ts', description: 'App association files for share links (/.well-known/*)', tables: {} },
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
  // (lib/features/recommend/model-refresh.ts). The catalog from gsi3, every video's likers from gsi2 (Query),
  // the previous lists (BatchGetItem), the changed ones written (BatchWriteItem).
  refreshModel: {
    entry: 'functions/refresh-model.ts',
    description: "Rebuilds the feed's learned model (item neighbours) from every like",
    tables: { hub: { actions: ['BatchGetItem', 'BatchWriteItem'], indexes: ['gsi2', 'gsi3'] } },
    memoryMb: 1024,
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
} satisfies Record<RouteFunction | 'authorizer' | 'streamCounters' | 'eraseAccounts' | 'sweepErasures' | 'reportAge' | 'refreshModel' | 'syntheticCheck', FunctionSpec>;

export type FunctionName = keyof typeof FUNCTIONS;

export { ROUTES, usesAuthorizer, type RouteSpec, type RouteAuth, type RouteFunction } from '../lib/transport/http/routes.js';

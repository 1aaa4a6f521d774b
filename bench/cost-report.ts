/**
 * `npm run cost:report`: writes docs/reports/cost.md, a month of the stack at three stated traffic levels,
 * line by line, from the bench's measured figures (bench/results.json: DynamoDB requests and units
 * per operation, warm latencies, import times, the model refresh, the stream processor's writes) and
 * the price table of bench/prices.ts. Everything the bench does not measure is a stated assumption
 * below, printed in the document. test/unit/cost-report.test.ts fails when the committed document is
 * not what this renders from the committed results.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FUNCTION_DEFAULTS } from '../infra/constructs/expohub-function.js';
import { MODEL_REFRESH_RATE } from '../infra/constructs/feed-model.js';
import { ITEM_MODEL } from '../lib/features/recommend/neighbours.js';
import { REPORT_AGE_SCHEDULE } from '../infra/constructs/monitoring.js';
import { FUNCTIONS, ROUTES, usesAuthorizer, type FunctionName, type FunctionSpec } from '../infra/routes.js';
import { loadConfig } from '../lib/platform/config.js';
import { TABLES } from '../lib/platform/db/tables.js';
import { METRICS } from '../lib/platform/observability/metric-names.js';
import { formatTable } from './format.js';
import { PRICES, PRICES_AS_OF, PRICES_REGION, REGIONAL_PRICES } from './prices.js';
import { readResults, type BenchResults } from './report.js';

export const COST_DOC = resolve(import.meta.dirname, '../docs/reports/cost.md');
const FUNCTION_CONSTRUCT = resolve(import.meta.dirname, '../infra/constructs/expohub-function.ts');

export const MONTH_DAYS = 30;
const MONTH_SECONDS = MONTH_DAYS * 86_400;

/** The traffic levels: daily active users, and the catalog each is assumed to have (the model refresh reads every video). */
export const LEVELS = [
  { dau: 1_000, videos: 2_000 },
  { dau: 100_000, videos: 20_000 },
  { dau: 1_000_000, videos: 100_000 },
] as const;
export type Level = (typeof LEVELS)[number];

type Credential = 'jwt' | 'key';

/** The functions' defaults (lib/platform/config.ts): a login token's life, the SMS countries and daily budgets. */
const DEFAULTS = loadConfig({ API_KEYS_TABLE: 'defaults', HUB_TABLE: 'defaults', JWT_SECRET_ARN: 'defaults' });
/** Returning people sign in again when their login token ends (JWT_TTL_SECONDS): once in its life, a share of them each day. */
const RETURNING_SIGN_INS = 86_400 / DEFAULTS.JWT_TTL_SECONDS;
/** New accounts a day, per daily active user (assumed). */
const NEW_ACCOUNTS = 0.005;

/** One activity of the daily mix: how often a daily active user does it, and the bench rows that measure it. */
export interface MixEntry {
  activity: string;
  perDauPerDay: number;
  /** The row of the bench's cost section (DynamoDB requests, RCU, WCU; the authorizer's included). */
  row: string;
  /** The row of the latency section (warm p50); absent: estimated from the row's requests. */
  latency?: string;
  fn: FunctionName;
  /** The credential the authorizer checks, for a route behind it. */
  credential?: Credential;
  /** Size of the answer, KB (assumed). */
  responseKb: number;
  /** Sends one SMS. */
  sms?: boolean;
  /** Writes a fact the stream processor counts: the hotspots section's row holding its writes with the call's. */
  stream?: 'like' | 'comment_set';
}

/**
 * What a daily active user does in a day. Most people stay signed in: they sign in again when their
 * login token ends (JWT_TTL_SECONDS), and 0.5 % are new; each sign-in takes one code.
 */
export const DAILY_MIX: MixEntry[] = [
  { activity: 'request a sign-in code (one SMS)', perDauPerDay: RETURNING_SIGN_INS + NEW_ACCOUNTS, row: 'gen_code', latency: 'gen_code', fn: 'hub', responseKb: 0.5, sms: true },
  { activity: 'sign in, returning', perDauPerDay: RETURNING_SIGN_INS, row: 'create_phone_account (sign-in, ends openid0/token0)', latency: 'create_phone_account (sign-in, ends openid0/token0)', fn: 'hub', responseKb: 1 },
  { activity: 'sign up, new account', perDauPerDay: NEW_ACCOUNTS, row: 'create_phone_account (new account)', latency: 'create_phone_account (new account)', fn: 'hub', responseKb: 1 },
  { activity: 'feed page, reporting the last page viewed', perDauPerDay: 12, row: 'get_next_list (signed in, view_list of 10)', latency: 'get_next_list (signed in, view_list of 10)', fn: 'hub', responseKb: 6 },
  { activity: 'feed page', perDauPerDay: 5, row: 'get_next_list (signed in)', latency: 'get_next_list (signed in)', fn: 'hub', responseKb: 6 },
  { activity: 'feed page, trending', perDauPerDay: 1, row: 'get_next_list (order=hot)', latency: 'get_next_list (order=hot)', fn: 'hub', responseKb: 6 },
  { activity: 'search', perDauPerDay: 1, row: 'get_next_list (q search)', latency: 'get_next_list (q search)', fn: 'hub', responseKb: 6 },
  { activity: 'more like this', perDauPerDay: 1, row: 'get_next_list (vid: more like this)', latency: 'get_next_list (vid: more like this)', fn: 'hub', responseKb: 6 },
  { activity: 'like', perDauPerDay: 3, row: 'like (first like)', latency: 'like (first like)', fn: 'hub', responseKb: 0.5, stream: 'like' },
  { activity: 'dislike', perDauPerDay: 0.5, row: 'dislike (a liked video)', latency: 'dislike (a liked video)', fn: 'hub', responseKb: 0.5, stream: 'like' },
  { activity: 'read comments', perDauPerDay: 2, row: 'comment_get (page 1)', latency: 'comment_get (page 1)', fn: 'hub', responseKb: 3 },
  { activity: 'comment', perDauPerDay: 0.2, row: 'comment_set (new comment)', latency: 'comment_set (new comment)', fn: 'hub', responseKb: 0.5, stream: 'comment_set' },
  { activity: 'share', perDauPerDay: 0.2, row: 'sharetext (new share, signed in)', latency: 'sharetext (new share)', fn: 'hub', responseKb: 0.5 },
  { activity: 'share page opened by a person', perDauPerDay: 0.4, row: 'GET /s/{shareid} (share page, a person)', fn: 'sharePage', responseKb: 4 },
  { activity: 'share page fetched by a link preview', perDauPerDay: 0.2, row: 'GET /s/{shareid} (share page, a link preview)', fn: 'sharePage', responseKb: 4 },
  { activity: 'own likes list', perDauPerDay: 0.5, row: 'get_fav (like list)', latency: 'get_fav (like list)', fn: 'hub', responseKb: 4 },
  { activity: 'follow', perDauPerDay: 0.05, row: 'follow_user (new relation)', latency: 'follow_user (new relation)', fn: 'hub', responseKb: 0.5 },
  { activity: 'pipeline: publish a video with an access key', perDauPerDay: 0.002, row: 'POST /videos (new, editor access key)', latency: 'POST /videos (new, editor access key)', fn: 'publishVideo', credential: 'key', responseKb: 1 },
  { activity: 'pipeline: verify an access key', perDauPerDay: 0.01, row: 'verify (last_used_at recent)', latency: 'verify (last_used_at recent)', fn: 'verifyKey', responseKb: 0.5 },
];

/** Where the SMS go (the stack's default, SMS_ALLOWED_COUNTRIES in lib/platform/config.ts, is CN alone: HK and US need `-c smsAllowedCountries=CN,HK,US`). */
export const SMS_COUNTRIES: Record<string, number> = { CN: 0.9, HK: 0.08, US: 0.02 };

/**
 * The synthetic check (functions/synthetic-check.ts, every 5 minutes): the checks of lib/features/smoke/checks.ts
 * through the front door (the key page `/` comes from S3 and is left out). Its metrics (SyntheticSuccess
 * and SyntheticLatency per check) are in METRICS and its function's two alarms in FUNCTIONS' count: only
 * its own alarm is added here.
 */
export const SYNTHETIC_CHECK = {
  everyMinutes: 5,
  calls: [
    { activity: 'synthetic: health', row: 'GET /health', latency: 'GET /health', fn: 'health', responseKb: 0.3 },
    // No DynamoDB request, like health: its figures stand in.
    { activity: 'synthetic: the OpenAPI document', row: 'GET /health', latency: 'GET /health', fn: 'openapi', responseKb: 60 },
    { activity: 'synthetic: anonymous feed page', row: 'get_next_list (no token)', latency: 'get_next_list (no token)', fn: 'hub', responseKb: 2 },
    // The unknown share's one read; the measured row (a link preview) also counts its open, an upper bound.
    { activity: "synthetic: the share page's 404", row: 'GET /s/{shareid} (share page, a link preview)', fn: 'sharePage', responseKb: 2 },
    { activity: 'synthetic: key verification', row: 'verify (last_used_at recent)', latency: 'verify (last_used_at recent)', fn: 'verifyKey', responseKb: 0.5 },
    { activity: 'synthetic: /me with the canary key', row: 'GET /me (access key)', latency: 'GET /me (access key)', fn: 'me', credential: 'key', responseKb: 0.5 },
    { activity: "synthetic: the canary key's usage", row: 'key_usage (used in 3 minutes today)', fn: 'keyUsage', credential: 'key', responseKb: 1.5 },
  ] satisfies Omit<MixEntry, 'perDauPerDay'>[],
  functionMs: 1000,
  memoryMb: FUNCTIONS.syntheticCheck.memoryMb,
  metrics: 0,
  alarms: 1,
  secrets: 1,
};

/** What the bench does not measure: stated, printed in the document. */
export const ASSUMPTIONS = {
  /** Share of invocations that start a new execution environment; its init (the bench's import time) is billed since August 2025. */
  coldStartShare: 0.01,
  /** Duration per DynamoDB request where the bench has no latency row. */
  msPerDynamoRequest: 5,
  /** The stream processor: one invocation per record (an upper bound: Lambda batches up to 100 when records queue), this long each. */
  streamProcessorMs: 20,
  /** The report-age check and the erasure sweeper: one Query each run (0.5 RCU), this long. */
  scheduledMs: 100,
  scheduledRcu: 0.5,
  /** The erasure sweeper's schedule (infra/constructs/erasure.ts). */
  sweepEveryMinutes: 10,
  /** Account deletions per daily active user per day; each erased as the bench's small account (deletion section). */
  deletionsPerDauPerDay: 0.0001,
  /** Stored per daily active user (a year of the mix's likes, views, comments and feed state, indexes included) and per catalog video (video, search postings, neighbour list). */
  storageKbPerDau: 300,
  storageKbPerVideo: 17,
  /**
   * CloudWatch Logs bytes. Per Lambda invocation: the START, END and REPORT lines (with the X-Ray
   * trace line) in Lambda's text format, about 340 bytes. Per API call: one metric line with a
   * dimension (Authentications, KeyVerifications: 234 bytes as Powertools writes it for
   * service=expohub-prod), and the access log line of infra/constructs/http-api.ts with typical
   * values (about 290 bytes); a feed call adds its FeedCalls line (197 bytes). Nothing else is
   * logged at INFO on these paths.
   */
  logBytesPerInvocation: 340,
  emfBytesPerApiCall: 234,
  emfBytesPerFeedCall: 197,
  accessLogBytesPerRequest: 290,
  /** X-Ray's default sampling rule: the first request each second, then 5 %. */
  xrayReservoirPerSecond: 1,
  xraySampleRate: 0.05,
  /** Busy execution environments per function = peak factor x average concurrency (for the secrets' refreshes). */
  peakFactor: 2,
  /** Secrets cached by every container for 300 s: the JWT secret (two stages), the origin-verify secret. */
  secretCacheSeconds: 300,
};

/** The stack's secrets (infra/stack.ts: the JWT signing secret and CloudFront's origin-verify secret); the synthetic check's key is one more. */
const STACK_SECRETS = 2;
/** The web ACL's rules (infra/constructs/web-acl.ts): three rate rules and the AWS managed common rule set. */
const WAF_RULES = 4;
/**
 * Alarms beside one per function error and throttle, the API's two and two per table and index
 * (infra/constructs/monitoring.ts): SMS spend, Unavailable, SmsFailed, 4 SMS budgets, the oldest
 * report, 2 of the stream processor, 2 of the erasure. The template synthesized on 2026-11-26 had
 * 106 alarms reading 109 metrics, which this count gives.
 */
const FIXED_ALARMS = 12;

export interface Line {
  service: string;
  item: string;
  quantity: string;
  usd: number;
}

export interface Estimate {
  level: Level;
  lines: Line[];
  total: number;
  smsByCountry: { country: string; messages: number; usd: number }[];
}

const LAMBDA_ARCH = (): 'arm64' | 'x86_64' => (readFileSync(FUNCTION_CONSTRUCT, 'utf8').includes('Architecture.ARM_64') ? 'arm64' : 'x86_64');

export function memoryMb(fn: FunctionName): number {
  const spec: FunctionSpec = FUNCTIONS[fn];
  return spec.memoryMb ?? FUNCTION_DEFAULTS.memoryMb;
}

const routeAuthorized = (fn: FunctionName) => ROUTES.some((r) => r.function === fn && usesAuthorizer(r));
const routed = (fn: FunctionName) => ROUTES.some((r) => r.function === fn);

/** GB-seconds of `invocations` of `ms` each (billed per whole ms) at `memory` MB. */
export function gbSeconds(invocations: number, ms: number, memory: number): number {
  return invocations * (Math.ceil(ms) / 1000) * (memory / 1024);
}

/** USD of Lambda: duration and requests. */
function lambdaPrice(gbs: number, invocations: number, arch: 'arm64' | 'x86_64'): number {
  const perGbSecond = arch === 'arm64' ? PRICES.lambdaArmPerGbSecond : PRICES.lambdaX86PerGbSecond;
  return gbs * perGbSecond + (invocations / 1e6) * PRICES.lambdaPerMillionRequests;
}

/** USD of Lambda for `invocations` of `ms` each at `memory` MB. */
export function lambdaUsd(invocations: number, ms: number, memory: number, arch: 'arm64' | 'x86_64' = 'arm64'): number {
  return lambdaPrice(gbSeconds(invocations, ms, memory), invocations, arch);
}

/** USD of `requests` HTTP API requests in a month (two tiers). */
export function httpApiUsd(requests: number): number {
  const first = Math.min(requests, 300e6);
  return (first / 1e6) * PRICES.httpApiPerMillionFirst300M + ((requests - first) / 1e6) * PRICES.httpApiPerMillionBeyond300M;
}

/** USD of DynamoDB on-demand request units. */
export function dynamoUsd(rru: number, wru: number): number {
  return (rru / 1e6) * PRICES.dynamoReadPerMillionRru + (wru / 1e6) * PRICES.dynamoWritePerMillionWru;
}

/** Traces X-Ray records in a month for an average rate of `perSecond` invocations under the default sampling rule. */
export function tracesPerMonth(perSecond: number): number {
  const sampled = Math.min(perSecond, ASSUMPTIONS.xrayReservoirPerSecond) + ASSUMPTIONS.xraySampleRate * Math.max(perSecond - ASSUMPTIONS.xrayReservoirPerSecond, 0);
  return sampled * MONTH_SECONDS;
}

interface FunctionUse {
  invocations: number;
  gbSeconds: number;
  /** Invocation-weighted duration sum, ms (for the mean shown). */
  ms: number;
}

export function estimate(results: BenchResults, level: Level): Estimate {
  const cost = results.cost?.rows ?? [];
  const latency = results.latency?.rows ?? [];
  const costRow = (name: string) => {
    const row = cost.find((r) => r.operation === name);
    if (!row) throw new Error(`bench/results.json has no cost row "${name}"`);
    return row;
  };
  const p50 = (name: string) => {
    const row = latency.find((r) => r.operation === name);
    if (!row) throw new Error(`bench/results.json has no latency row "${name}"`);
    return row.p50;
  };
  const importMs = (fn: FunctionName) => results.coldstart?.rows.find((r) => r.function === fn)?.importMsMedian ?? 0;
  const arch = LAMBDA_ARCH();

  const use = new Map<FunctionName | 'syntheticCheck', FunctionUse>();
  const invoke = (fn: FunctionName | 'syntheticCheck', invocations: number, ms: number, memory: number, initMs = 0) => {
    const u = use.get(fn) ?? { invocations: 0, gbSeconds: 0, ms: 0 };
    const cold = invocations * ASSUMPTIONS.coldStartShare;
    u.invocations += invocations;
    u.gbSeconds += gbSeconds(invocations, ms, memory) + gbSeconds(cold, initMs, memory);
    u.ms += invocations * Math.ceil(ms) + cold * Math.ceil(initMs);
    use.set(fn, u);
  };

  let apiRequests = 0;
  let responseKb = 0;
  let rru = 0;
  let wru = 0;
  let streamRecords = 0;
  let streamWru = 0;
  let sms = 0;
  let feedCalls = 0;
  const calls = (entry: Omit<MixEntry, 'perDauPerDay'>, n: number) => {
    const row = costRow(entry.row);
    apiRequests += n;
    responseKb += n * entry.responseKb;
    rru += n * row.rcu;
    wru += n * row.wcu;
    const ms = entry.latency ? p50(entry.latency) : row.functionRequests * ASSUMPTIONS.msPerDynamoRequest;
    invoke(entry.fn, n, ms, memoryMb(entry.fn), importMs(entry.fn));
    if (routeAuthorized(entry.fn)) {
      const authorizerMs = p50(entry.credential === 'key' ? 'authorizer: access key (last_used_at recent)' : 'authorizer: JWT');
      invoke('authorizer', n, authorizerMs, memoryMb('authorizer'), importMs('authorizer'));
    }
    if (entry.sms) sms += n;
    if (entry.row.startsWith('get_next_list')) feedCalls += n;
    if (entry.stream) {
      const measured = results.hotspots?.mix.find((m) => m.operation === entry.stream);
      if (!measured) throw new Error(`bench/results.json has no hotspots row "${entry.stream}"`);
      streamRecords += n;
      // The hotspots section counts the stream processor's writes with the call that caused them.
      streamWru += n * Math.max(measured.wcuPerCall - costRow(entry.stream === 'like' ? 'like (first like)' : 'comment_set (new comment)').wcu, 0);
    }
  };

  for (const entry of DAILY_MIX) calls(entry, entry.perDauPerDay * level.dau * MONTH_DAYS);

  const runs = (everyMinutes: number) => (MONTH_DAYS * 24 * 60) / everyMinutes;
  const checkRuns = runs(SYNTHETIC_CHECK.everyMinutes);
  for (const call of SYNTHETIC_CHECK.calls) calls(call, checkRuns);
  invoke('syntheticCheck', checkRuns, SYNTHETIC_CHECK.functionMs, SYNTHETIC_CHECK.memoryMb);
  const synthRequests = checkRuns * SYNTHETIC_CHECK.calls.length;

  // The stream processor: one invocation per record at most.
  invoke('streamCounters', streamRecords, ASSUMPTIONS.streamProcessorMs, memoryMb('streamCounters'));

  // The model refresh (bench sections model and training): reads scale with the catalog (the model
  // section's larger world, per video); the training with the videos in the model (at most
  // ITEM_MODEL.maxVideos) as the training section's fitted solve, with the validation's four solves
  // of at most ITEM_MODEL.validationVideos; every list of the model is rewritten each run (EASE's
  // weights move together: the training section's rewritten share).
  const modelWorld = results.model?.rows.at(-1);
  const training = results.training;
  if (!modelWorld || !training) throw new Error('bench/results.json lacks the model or the training section');
  const refreshRuns = runs(MODEL_REFRESH_RATE.toMinutes());
  const rcuPerVideo = modelWorld.unchanged.cost.rcu / modelWorld.unchanged.videos;
  const wcuPerList = modelWorld.afterOnePercent.cost.wcu / Math.max(1, modelWorld.afterOnePercent.written);
  const ioMsPerVideo = (modelWorld.unchanged.ms - (modelWorld.unchanged.model?.trainMs ?? 0)) / modelWorld.unchanged.videos;
  const modelVideos = Math.min(level.videos, ITEM_MODEL.maxVideos);
  const solveSeconds = (n: number) => training.fit.c * n ** 3;
  const trainMs = 1000 * (solveSeconds(modelVideos) + ITEM_MODEL.lambdaShares.length * solveSeconds(Math.min(modelVideos, ITEM_MODEL.validationVideos)));
  const rewrittenShare = Math.max(...training.rows.map((r) => r.rewrittenShare));
  const modelRru = refreshRuns * rcuPerVideo * level.videos;
  const modelWru = refreshRuns * wcuPerList * rewrittenShare * modelVideos;
  invoke('refreshModel', refreshRuns, trainMs + ioMsPerVideo * level.videos, memoryMb('refreshModel'));

  const reportRuns = runs(REPORT_AGE_SCHEDULE.toMinutes());
  const sweepRuns = runs(ASSUMPTIONS.sweepEveryMinutes);
  invoke('reportAge', reportRuns, ASSUMPTIONS.scheduledMs, memoryMb('reportAge'));
  invoke('sweepErasures', sweepRuns, ASSUMPTIONS.scheduledMs, memoryMb('sweepErasures'));
  const scheduledRru = (reportRuns + sweepRuns) * ASSUMPTIONS.scheduledRcu;

  // Account deletions: the request (deleteAccount, behind the authorizer) and one erasure of the bench's small account.
  const deletion = results.deletion?.rows[0];
  if (!deletion) throw new Error('bench/results.json has no deletion section');
  const deletions = ASSUMPTIONS.deletionsPerDauPerDay * level.dau * MONTH_DAYS;
  apiRequests += deletions;
  responseKb += deletions * 0.5;
  invoke('deleteAccount', deletions, deletion.request.ms, memoryMb('deleteAccount'), importMs('deleteAccount'));
  invoke('authorizer', deletions, p50('authorizer: JWT'), memoryMb('authorizer'));
  invoke('eraseAccounts', deletions, deletion.erasedMs, memoryMb('eraseAccounts'));
  const erasureRru = deletions * deletion.erasure.rcu;
  const erasureWru = deletions * (deletion.request.wcu + deletion.erasure.wcu);

  const lines: Line[] = [];
  const add = (service: string, item: string, quantity: string, usd: number) => lines.push({ service, item, quantity, usd });

  // Lambda, per function, in a stable order: the API's busiest first, then the rest.
  const lambdaLabel: Record<string, string> = {
    hub: 'hub (every `do`)',
    authorizer: 'authorizer',
    sharePage: 'share page',
    verifyKey: 'key verification',
    publishVideo: 'publish (pipeline)',
    health: 'health (synthetic check)',
    syntheticCheck: 'synthetic check, every 5 min',
    streamCounters: 'stream processor (counters)',
    refreshModel: 'model refresh, hourly',
    reportAge: 'report-age check, every 5 min',
    sweepErasures: 'erasure sweeper, every 10 min',
    deleteAccount: 'account deletion requests',
    eraseAccounts: 'erasure runs',
  };
  for (const [fn, label] of Object.entries(lambdaLabel)) {
    const u = use.get(fn as FunctionName);
    if (!u) throw new Error(`no use of ${fn} in the estimate`);
    const memory = fn === 'syntheticCheck' ? SYNTHETIC_CHECK.memoryMb : memoryMb(fn as FunctionName);
    add('Lambda', label, `${count(u.invocations)} invocations, ${count(u.gbSeconds)} GB-s (${memory} MB, ${round1(u.ms / u.invocations)} ms billed on average)`, lambdaPrice(u.gbSeconds, u.invocations, arch));
  }

  add('API Gateway', 'HTTP API requests', `${count(apiRequests)} requests (${count(synthRequests)} of them the synthetic check's)`, httpApiUsd(apiRequests));

  add('DynamoDB', 'reads, request path', `${count(rru)} read units (the authorizer's included)`, dynamoUsd(rru, 0));
  add('DynamoDB', 'writes, request path', `${count(wru)} write units`, dynamoUsd(0, wru));
  add('DynamoDB', "stream processor's counter writes", `${count(streamWru)} write units for ${count(streamRecords)} likes, dislikes and comments`, dynamoUsd(0, streamWru));
  add('DynamoDB', 'model refresh', `${count(refreshRuns)} runs over ${count(level.videos)} videos: ${count(modelRru)} read units, ${count(modelWru)} write units`, dynamoUsd(modelRru, modelWru));
  add('DynamoDB', 'scheduled checks and erasures', `${count(scheduledRru + erasureRru)} read units, ${count(erasureWru)} write units`, dynamoUsd(scheduledRru + erasureRru, erasureWru));
  const storageGb = (level.dau * ASSUMPTIONS.storageKbPerDau + level.videos * ASSUMPTIONS.storageKbPerVideo) / 1024 ** 2;
  add('DynamoDB', 'storage', `${round1(storageGb)} GB`, storageGb * PRICES.dynamoStoragePerGbMonth);
  add('DynamoDB', 'point-in-time recovery', `${round1(storageGb)} GB`, storageGb * PRICES.dynamoPitrPerGbMonth);
  add('DynamoDB Streams', 'reads by the Lambda triggers', `${count(streamRecords)} records: free (GetRecords by Lambda triggers is not charged)`, 0);

  const cloudFrontRequests = apiRequests;
  const gbOut = responseKb / 1024 ** 2;
  add('CloudFront', 'HTTPS requests', `${count(cloudFrontRequests)} requests, Asia edges`, (cloudFrontRequests / 1e4) * PRICES.cloudFrontAsiaPer10kHttpsRequests);
  add('CloudFront', 'data out', `${round1(gbOut)} GB`, gbOut * PRICES.cloudFrontAsiaPerGbOut);
  add('WAF', 'web ACL', '1 web ACL', PRICES.wafPerWebAclMonth);
  add('WAF', 'rules', `${WAF_RULES} rules`, WAF_RULES * PRICES.wafPerRuleMonth);
  add('WAF', 'requests', `${count(cloudFrontRequests)} requests`, (cloudFrontRequests / 1e6) * PRICES.wafPerMillionRequests);

  // Secrets: every routed function reads the origin-verify secret, those with jwtSecret the JWT secret's two stages, once per cache period per busy environment.
  let secretCalls = 0;
  for (const [fn, u] of use) {
    if (fn === 'syntheticCheck') {
      secretCalls += u.invocations;
      continue;
    }
    const spec: FunctionSpec = FUNCTIONS[fn];
    const reads = (routed(fn) ? 1 : 0) + (spec.jwtSecret ? 2 : 0);
    if (reads === 0) continue;
    const environments = Math.max(1, (ASSUMPTIONS.peakFactor * u.ms) / 1000 / MONTH_SECONDS);
    secretCalls += reads * Math.min(u.invocations, environments * (MONTH_SECONDS / ASSUMPTIONS.secretCacheSeconds));
  }
  const secrets = STACK_SECRETS + SYNTHETIC_CHECK.secrets;
  add('Secrets Manager', 'secrets', `${secrets} secrets`, secrets * PRICES.secretPerMonth);
  add('Secrets Manager', 'API calls', `${count(secretCalls)} calls (cached 5 minutes per environment)`, (secretCalls / 1e4) * PRICES.secretsPer10kCalls);
  add('KMS', "the alarm topic's key", '1 customer managed key', PRICES.kmsKeyPerMonth);

  let invocations = 0;
  for (const u of use.values()) invocations += u.invocations;
  const logGb = (invocations * ASSUMPTIONS.logBytesPerInvocation + apiRequests * (ASSUMPTIONS.accessLogBytesPerRequest + ASSUMPTIONS.emfBytesPerApiCall) + feedCalls * ASSUMPTIONS.emfBytesPerFeedCall) / 1024 ** 3;
  add('CloudWatch', 'logs ingested', `${round1(logGb)} GB`, logGb * PRICES.logsIngestedPerGb);
  add('CloudWatch', 'logs stored (one month kept)', `${round1(logGb)} GB`, logGb * PRICES.logsStoredPerGbMonth);
  const metricSpecs: { values?: readonly string[] }[] = Object.values(METRICS);
  const metricCount = metricSpecs.reduce((s, m) => s + (m.values?.length ?? 1), 0) + SYNTHETIC_CHECK.metrics;
  add('CloudWatch', 'custom metrics', `${metricCount} metrics`, metricCount * PRICES.metricPerMonth);
  const indexes = TABLES.reduce((s, t) => s + 1 + t.globalIndexes.length, 0);
  const alarms = 2 * Object.keys(FUNCTIONS).length + 2 + 2 * indexes + FIXED_ALARMS + SYNTHETIC_CHECK.alarms;
  const alarmMetrics = alarms + METRICS.Unavailable.values.length - 1;
  add('CloudWatch', 'alarms', `${alarms} alarms reading ${alarmMetrics} metrics`, alarmMetrics * PRICES.alarmMetricPerMonth);
  add('CloudWatch', 'dashboard', '1 dashboard', PRICES.dashboardPerMonth);
  let traces = 0;
  for (const u of use.values()) traces += tracesPerMonth(u.invocations / MONTH_SECONDS);
  add('X-Ray', 'traces recorded', `${count(traces)} traces (default sampling, per function)`, (traces / 1e6) * PRICES.xrayPerMillionTraces);

  const smsByCountry = Object.entries(SMS_COUNTRIES).map(([country, share]) => {
    const price = PRICES.smsPerMessage[country];
    if (price === undefined) throw new Error(`bench/prices.ts has no SMS price for ${country}`);
    return { country, messages: sms * share, usd: sms * share * price };
  });
  for (const s of smsByCountry) add('SNS SMS', `sign-in codes to ${s.country}`, `${count(s.messages)} messages`, s.usd);
  add('EventBridge', 'schedules', `${count(refreshRuns + reportRuns + sweepRuns + checkRuns)} scheduled invocations: free`, 0);

  return { level, lines, total: lines.reduce((s, l) => s + l.usd, 0), smsByCountry };
}

function count(n: number): string {
  if (n >= 1e9) return `${round1(n / 1e9)}B`;
  if (n >= 1e6) return `${round1(n / 1e6)}M`;
  if (n >= 1e4) return `${round1(n / 1e3)}k`;
  return n >= 100 ? String(Math.round(n)) : String(round1(n));
}

function round1(n: number): number {
  return n >= 10 ? Math.round(n) : Math.round(n * 10) / 10;
}

export function usd(n: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

const dauLabel = (dau: number) => `${dau >= 1e6 ? `${dau / 1e6}M` : `${dau / 1e3}k`} DAU`;

/** docs/reports/cost.md, whole. */
export function renderCostDoc(results: BenchResults): string {
  const estimates = LEVELS.map((level) => estimate(results, level));
  const [first] = estimates;
  const heads = LEVELS.map((l) => dauLabel(l.dau));
  const out: string[] = [];
  out.push('# What a month costs');
  out.push('');
  out.push(
    `<!-- generated by npm run cost:report (bench/cost-report.ts) from bench/results.json and bench/prices.ts; do not edit by hand -->`,
  );
  out.push('');
  out.push(
    `A month (${MONTH_DAYS} days) of one stage at three traffic levels, line by line, in USD at ${PRICES_REGION} on-demand list prices (price table of ${PRICES_AS_OF}, \`bench/prices.ts\`), free tier ignored. ` +
      `Generated by \`npm run cost:report\` (\`bench/cost-report.ts\`) from the bench's measured figures in \`bench/results.json\` (run of ${results.meta.date}; docs/reports/performance.md) and the daily mix below; re-run it when the bench or the prices change. ` +
      '`test/unit/cost-report.test.ts` fails when this page is not what the script renders.',
  );
  out.push('');
  out.push('## The month');
  out.push('');
  const rows = first!.lines.map((line, i) => [line.service, line.item, ...estimates.map((e) => usd(e.lines[i]!.usd))]);
  rows.push(['**total**', '', ...estimates.map((e) => `**${usd(e.total)}**`)]);
  rows.push(['per 1,000 DAU', '', ...estimates.map((e) => usd((e.total / e.level.dau) * 1000))]);
  out.push(formatTable(['service', 'line', ...heads], rows));
  out.push('');
  for (const e of estimates) {
    const largest = [...e.lines].sort((a, b) => b.usd - a.usd).slice(0, 3);
    const smsTotal = e.smsByCountry.reduce((s, c) => s + c.usd, 0);
    out.push(
      `- **${dauLabel(e.level.dau)}**: ${usd(e.total)} a month; the largest lines ${largest.map((l) => `${l.service} ${l.item} (${usd(l.usd)})`).join(', ')}; sign-in SMS ${usd(smsTotal)} in all.`,
    );
  }
  out.push('');
  out.push('## What each line counts');
  out.push('');
  out.push(formatTable(['service', 'line', ...heads], first!.lines.map((line, i) => [line.service, line.item, ...estimates.map((e) => e.lines[i]!.quantity)])));
  out.push('');
  out.push('## The daily mix');
  out.push('');
  out.push(
    `Per daily active user (DAU) and day, with the bench rows that price each call (DynamoDB units from the cost section, the authorizer's included; duration the warm p50 of the latency section, or ${ASSUMPTIONS.msPerDynamoRequest} ms per DynamoDB request where it has no row). Catalog: ${LEVELS.map((l) => `${count(l.videos)} videos at ${dauLabel(l.dau)}`).join(', ')}.`,
  );
  out.push('');
  const cost = results.cost?.rows ?? [];
  const latency = results.latency?.rows ?? [];
  out.push(
    formatTable(
      ['activity', 'per DAU a day', 'function', 'authorizer', 'bench row', 'requests', 'RCU', 'WCU', 'p50 ms', 'answer KB'],
      DAILY_MIX.map((e) => {
        const row = cost.find((r) => r.operation === e.row)!;
        const ms = e.latency ? latency.find((r) => r.operation === e.latency)!.p50 : `${row.functionRequests * ASSUMPTIONS.msPerDynamoRequest} (est.)`;
        return [e.activity, e.perDauPerDay, e.fn, routeAuthorized(e.fn) ? (e.credential === 'key' ? 'access key' : 'JWT') : 'no', e.row, row.requests, row.rcu, row.wcu, ms, e.responseKb];
      }),
    ),
  );
  out.push('');
  out.push(
    `SMS: one code per sign-in (returning people sign in again when their login token ends, every ${DEFAULTS.JWT_TTL_SECONDS / 86_400} days, \`JWT_TTL_SECONDS\`: ${round1(RETURNING_SIGN_INS * 1000) / 10} % of them a day), to ${Object.entries(SMS_COUNTRIES).map(([c, s]) => `${c} ${Math.round(s * 100)} %`).join(', ')} of the numbers. The stack's default (\`SMS_ALLOWED_COUNTRIES\`, lib/platform/config.ts) sends to ${DEFAULTS.SMS_ALLOWED_COUNTRIES.join(', ')} alone: HK and US need \`-c smsAllowedCountries=CN,HK,US\` (docs/deploy.md).`,
  );
  out.push('');
  for (const level of LEVELS) {
    const sends = { new: NEW_ACCOUNTS * level.dau, returning: RETURNING_SIGN_INS * level.dau };
    const over = [sends.new > DEFAULTS.SMS_DAILY_CAP ? `\`smsDailyCap\` (${DEFAULTS.SMS_DAILY_CAP})` : '', sends.returning > DEFAULTS.SMS_DAILY_CAP_RETURNING ? `\`smsDailyCapReturning\` (${DEFAULTS.SMS_DAILY_CAP_RETURNING})` : ''].filter(Boolean);
    out.push(
      `- ${dauLabel(level.dau)}: ${count(sends.new)} codes a day to new numbers, ${count(sends.returning)} to returning accounts: ${over.length ? `above the default daily ${over.length > 1 ? 'budgets' : 'budget'} ${over.join(' and ')}; raise ${over.length > 1 ? 'them' : 'it'} with the audience, or gen_code answers 429 past it (docs/deploy.md, "SMS cost controls")` : 'within the default daily budgets'}.`,
    );
  }
  out.push('');
  out.push('SMS per country and level:');
  out.push('');
  out.push(
    formatTable(
      ['country', 'USD per message', ...heads.map((h) => `${h}: messages`), ...heads.map((h) => `${h}: USD`)],
      Object.keys(SMS_COUNTRIES).map((country) => [
        country,
        PRICES.smsPerMessage[country],
        ...estimates.map((e) => count(e.smsByCountry.find((s) => s.country === country)!.messages)),
        ...estimates.map((e) => usd(e.smsByCountry.find((s) => s.country === country)!.usd)),
      ]),
    ),
  );
  out.push('');
  out.push('## Assumptions (not measured by the bench)');
  out.push('');
  const a = ASSUMPTIONS;
  out.push(`- Lambda: ${LAMBDA_ARCH()} as deployed (infra/constructs/expohub-function.ts), each function at its configured memory (infra/routes.ts, default ${FUNCTION_DEFAULTS.memoryMb} MB), billed per whole ms of the warm p50 measured in process against DynamoDB Local (docs/reports/performance.md): deployed round trips to DynamoDB differ. ${a.coldStartShare * 100} % of invocations start cold and are billed their init too (the bench's import time of that function).`);
  out.push(`- The authorizer runs once per call of a route behind it (no result cache): the JWT row for a login token, the access-key row for a key. The hub authenticates its own operations.`);
  out.push(`- The stream processor: one invocation of ${a.streamProcessorMs} ms per like, dislike or comment (an upper bound: Lambda batches records when they queue); its counter writes are the hotspots section's writes per call less the call's own.`);
  out.push(`- The model refresh: runs every ${MODEL_REFRESH_RATE.toMinutes()} minutes over the whole catalog, at the bench's read units and time of reading per video (model section, the larger world), training the ${ITEM_MODEL.maxVideos.toLocaleString('en-US')} videos with the most interactions at most (the training section's fitted solve, c n^3, plus the validation's ${ITEM_MODEL.lambdaShares.length} solves of at most ${ITEM_MODEL.validationVideos.toLocaleString('en-US')}), and rewriting every list of the model each run (the training section's rewritten share) at the model section's write units per list.`);
  out.push(`- The report-age check (every ${REPORT_AGE_SCHEDULE.toMinutes()} minutes) and the erasure sweeper (every ${a.sweepEveryMinutes}): ${a.scheduledMs} ms and ${a.scheduledRcu} read units a run. Account deletions: ${a.deletionsPerDauPerDay * 100} % of DAU a day, each erased as the bench's small account (deletion section).`);
  out.push(`- The synthetic check: one function run of ${SYNTHETIC_CHECK.functionMs} ms at ${SYNTHETIC_CHECK.memoryMb} MB every ${SYNTHETIC_CHECK.everyMinutes} minutes, making ${SYNTHETIC_CHECK.calls.length} calls through CloudFront (${SYNTHETIC_CHECK.calls.map((c) => `${c.activity.replace('synthetic: ', '')}, costed as ${c.row}`).join('; ')}), with ${SYNTHETIC_CHECK.metrics > 0 ? `${SYNTHETIC_CHECK.metrics} metrics, ` : ''}${SYNTHETIC_CHECK.alarms} alarm and ${SYNTHETIC_CHECK.secrets} secret (its key) of its own${SYNTHETIC_CHECK.metrics > 0 ? '' : ' (its metrics, SyntheticSuccess and SyntheticLatency, are among the custom metrics above)'}, reading its secret once a run. The key page it also loads comes from S3 through CloudFront: 8,640 requests a month, not counted (under a cent).`);
  out.push(`- Storage: ${a.storageKbPerDau} KB per DAU (about a year of the mix, indexes included) and ${a.storageKbPerVideo} KB per catalog video (the video, its search postings and neighbour list); point-in-time recovery is billed on the same size.`);
  out.push(`- CloudFront and WAF see every API call and share page (the page's assets are cached and left out); answers of the sizes in the mix, at the prices of CloudFront's Asia edges (viewers in China and Hong Kong). Video files are not served by this stack.`);
  out.push(`- CloudWatch Logs: ${a.logBytesPerInvocation} bytes per invocation (START, END, REPORT), ${a.emfBytesPerApiCall} bytes of metrics (one line) and ${a.accessLogBytesPerRequest} bytes of access log per API call, ${a.emfBytesPerFeedCall} more per feed call (its FeedCalls line); nothing else is logged at INFO on these paths; logs are kept a month (storage counted uncompressed, an upper bound). Custom metrics: every metric and dimension value of lib/platform/observability/metric-names.ts, as if each had data all month. Alarms: one per function error and throttle, the API's, every table's and index's throttles and the service alarms (infra/constructs/monitoring.ts).`);
  out.push(`- X-Ray: active tracing on every function, default sampling (${a.xrayReservoirPerSecond} a second, then ${a.xraySampleRate * 100} %), traffic spread evenly over the month.`);
  out.push(`- Secrets Manager: every environment of a routed function reads the origin-verify secret, and those that sign or verify tokens the JWT secret's two stages, every ${a.secretCacheSeconds} s while busy; busy environments = ${a.peakFactor} x the average concurrency, at least one.`);
  out.push('');
  out.push('## Not counted');
  out.push('');
  out.push('- The free tier (Lambda, DynamoDB, CloudWatch, X-Ray, the first 3 dashboards), Savings Plans, taxes and support plans.');
  out.push('- Data transfer from CloudFront to the API (requests are small), from API Gateway to CloudFront and between AWS services in the region (free or negligible); the page\'s S3 bucket and its requests; SNS e-mail notifications of alarms and the KMS requests they make; WAF logs of blocked requests; SQS on-failure queues; X-Ray trace retrieval; dashboard and alarm metric reads; Route 53 and ACM when a custom domain is used.');
  out.push('- Retries, errors and abuse: refused calls (429, 4xx), bots and SMS pumping beyond the daily budgets (docs/deploy.md, "SMS cost controls").');
  out.push('- Deploy-time resources (the CDK bootstrap bucket, custom resources).');
  out.push('');
  out.push('## Prices');
  out.push('');
  out.push(
    `List prices of ${PRICES_REGION}, USD, from bench/prices.ts (written ${PRICES_AS_OF} from AWS's published prices as the engineer knew them, not read from the AWS pages on that day: check them before budgeting, the SMS prices above all).`,
  );
  out.push('');
  out.push(formatTable(['price', 'USD'], Object.entries(PRICES).filter(([, v]) => typeof v === 'number').map(([k, v]) => [k, v as number])));
  out.push('');
  out.push('Other regions (the stack deploys in any region; the CLOUDFRONT web ACL stays in us-east-1, CloudFront and SMS do not depend on the region):');
  out.push('');
  for (const [region, note] of Object.entries(REGIONAL_PRICES)) out.push(`- **${region}**: known: ${note.known}; assumed equal to ${PRICES_REGION}: ${note.assumedEqual}.`);
  out.push('');
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const rendered = renderCostDoc(readResults(process.argv[2]));
  let before = '';
  try {
    before = readFileSync(COST_DOC, 'utf8');
  } catch {
    // First run: no document yet.
  }
  writeFileSync(COST_DOC, rendered);
  console.log(before === rendered ? 'docs/reports/cost.md: unchanged' : 'docs/reports/cost.md: written from bench/results.json and bench/prices.ts');
}

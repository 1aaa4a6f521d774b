import { importCatalog } from '../catalog.js';
import { jwtFor, mustSucceed, signUpMany } from '../fixtures.js';
import { bearer, hubRequest, invoke, type BenchRequest } from '../invoke.js';
import { newLedger, prepareKeyRecorder, recordedSoFar, recordKeys, type KeyLedger } from '../key-recorder.js';
import { printTable } from '../format.js';
import { HEAD_READ, separateHeadReads } from '../key-recorder.js';
import { HEAD_TTL_MS, dropSharedHeads, observeSharedHeads } from '../../lib/entities/catalog/shared-heads.js';
import { HEAD_DEPTH } from '../../lib/features/recommend/sources.js';
import { round } from '../stats.js';
import { seededRandom } from '../../lib/platform/seeded-random.js';
import { shardOf } from '../../lib/platform/db/keys.js';
import { COUNTER_BATCHING } from '../../lib/features/streams/batching.js';
import { applyChangeRecords, streamDb } from '../../lib/features/streams/counters.js';
import { dueTrendKeys, forgetTrendKeys, moveTrendKeys } from '../../lib/features/streams/trend-keys.js';
import { TREND_KEY_INTERVAL_MS } from '../../lib/entities/catalog/trend.js';
import { clock } from '../../lib/platform/clock.js';
import { factOf, type ChangeRecord } from '../../lib/features/streams/facts.js';
import { startStreamPoller } from '../../local/stream-poller.js';

/**
 * A scaling model: the load on the busiest DynamoDB item and partition key for a stated traffic mix
 * at 100x today's expected traffic. The mix is sampled for real, through the deployed handlers on
 * DynamoDB Local, with every request's capacity attributed to the keys it touched (per table and per
 * index, bench/key-recorder.ts); each sampled call of an operation stands for `rate / sampled` calls a
 * second, so a key's rate is its sampled units times that factor. Keys that many calls share (the
 * author who owns half the catalog, the trending video, the index partitions) come out as they would
 * at that rate; keys of one caller (their account, feed state) are overstated, because the sample's
 * 200 callers stand for a far larger population.
 */

export const PARTITION_LIMITS = { wcu: 1000, rcu: 3000 } as const;

interface MixEntry {
  operation: string;
  /** Calls a second at 100x. */
  rate: number;
  /** Calls sampled. */
  sampled: number;
  description: string;
}

export interface HotspotRow {
  key: string;
  wcuPerSecond: number;
  rcuPerSecond: number;
  requestsPerSecond: number;
}

export interface HotspotsResult {
  mix: (MixEntry & { requestsPerCall: number; rcuPerCall: number; wcuPerCall: number; failures: number })[];
  world: { videos: number; editorVideos: number; authors: number; callers: number };
  busiestWritePartitions: HotspotRow[];
  busiestReadPartitions: HotspotRow[];
  busiestItems: HotspotRow[];
  limits: typeof PARTITION_LIMITS;
  worstPartitionWcu: HotspotRow;
  worstPartitionRcu: HotspotRow;
  worstItemWcu: HotspotRow;
  /** The feed's shared heads, rated by warm containers (sharedHeadsModel). */
  sharedHeads?: SharedHeadsModel;
  withinLimits: boolean;
  /** Whether the stream processor's writes are in the figures. */
  note: string;
  /** How the stream processor was settled (see settleInBatches). */
  streamProcessor?: StreamModel;
}

export interface StreamModel {
  batchSize: number;
  windowSeconds: number;
  parallelization: number;
  /** Stream shards at the mix: the table's partitions its write rate calls for at least. */
  streamShardsAtMix: number;
  /** Shards the sample's records were spread over, so that one holds what a stream shard gathers in one window. */
  sampledShards: number;
  factRecords: number;
  batches: number;
  transactions: number;
  wcuPerSecond: number;
  /** The trend key's moves (lib/features/streams/trend-keys.ts): at most one per video per interval. */
  keyIntervalSeconds: number;
  keyMovesSampled: number;
  /** Moves a second at the mix: per video min(its likes a second, 1 / interval), summed. */
  keyMovesPerSecond: number;
  keyMovesWcuPerSecond: number;
}

const CATALOG = 1000;
const OTHER_AUTHORS = 50;
const CALLERS = 200;
/** Calls a second one person makes at most (a feed page, a like or a comment every second). */
const CALLER_RATE = 1;

export async function hotspotsSection(options: {
  quick: boolean;
  settings: Record<string, string>;
  settle?: () => Promise<void>;
  /** The running stream processor, held back while the model hands the sample's records over itself. */
  streams?: { pause(): Promise<void>; resume(): void };
}): Promise<HotspotsResult> {
  const scale = options.quick ? 0.02 : 0.1;
  const mix: MixEntry[] = [
    { operation: 'like', rate: 2000, sampled: Math.round(2000 * scale), description: 'uniform over the catalog: half of it owned by one author' },
    { operation: 'comment_set', rate: 500, sampled: Math.round(500 * scale), description: 'all on one trending video (owned by that author)' },
    { operation: 'get_next_list', rate: 5000, sampled: Math.round(5000 * scale), description: 'signed in; every other call reports the previous page as view_list' },
    { operation: 'POST /videos', rate: 50, sampled: Math.max(1, Math.round(50 * scale)), description: 'the editor account (the pipeline) publishing' },
  ];
  const settings = options.settings;
  await prepareKeyRecorder(settings.DYNAMODB_ENDPOINT!, [settings.HUB_TABLE!, settings.API_KEYS_TABLE!].filter(Boolean));

  // The world: one editor owning half the catalog, 50 other authors, 200 callers.
  const [editor, ...others] = await signUpMany(1 + OTHER_AUTHORS);
  const { setAccountRoles } = await import('../../lib/entities/accounts/accounts.js');
  await setAccountRoles(editor!.openid, ['editor']);
  const editorToken = await jwtFor(editor!.openid, ['editor']);
  const authors = others.map((a) => a.openid);
  const editorVids = await importCatalog(editor!.openid, 0, CATALOG / 2, { prefix: 'he' });
  const otherVids = await importCatalog(authors, 0, CATALOG / 2, { prefix: 'ho' });
  const catalog = [...editorVids, ...otherVids];
  const trending = editorVids[0]!;
  const callers = await signUpMany(CALLERS);
  // Every caller has a feed state already (an ordinary caller, not a first call).
  const lastPage = new Map<string, string[]>();
  for (const c of callers) {
    const page = await mustSucceed(hubRequest('get_next_list', { openid: c.openid, token: c.token }));
    lastPage.set(c.openid, ((page.list as { vid: string }[] | undefined) ?? []).map((v) => v.vid));
  }

  // The sampled calls, interleaved in a seeded order.
  const random = seededRandom(20261122);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const queue: { op: string; build: () => BenchRequest; expect: number }[] = [];
  const liked = new Set<string>();
  let commentNo = 0;
  let publishNo = 0;
  const builders: Record<string, { expect: number; build: () => BenchRequest }> = {
    like: {
      expect: 200,
      build: () => {
        let who = pick(callers);
        let vid = pick(catalog);
        while (liked.has(`${who.openid} ${vid}`)) [who, vid] = [pick(callers), pick(catalog)];
        liked.add(`${who.openid} ${vid}`);
        return hubRequest('like', { openid: who.openid, token: who.token, vid });
      },
    },
    comment_set: {
      expect: 200,
      build: () => {
        const who = pick(callers);
        return hubRequest('comment_set', { openid: who.openid, token: who.token, vid: trending, content: `hotspots comment ${commentNo++}` });
      },
    },
    get_next_list: {
      expect: 200,
      build: () => {
        const who = pick(callers);
        const report = random() < 0.5 ? lastPage.get(who.openid) : undefined;
        return hubRequest('get_next_list', { openid: who.openid, token: who.token, view_list: report?.length ? report.join(',') : undefined });
      },
    },
    'POST /videos': {
      expect: 201,
      build: () => ({
        method: 'POST',
        path: '/api/v1/videos',
        headers: bearer(editorToken),
        body: { title: `Hotspots publish ${publishNo}`, description: 'Published by the hotspots bench', video_url: `https://cdn.example.com/h/${publishNo}.mp4`, cover_url: `https://cdn.example.com/h/${publishNo++}.jpg`, duration_s: 60, tags: ['expo', 'bench'] },
      }),
    },
  };
  for (const m of mix) for (let i = 0; i < m.sampled; i++) queue.push({ op: m.operation, ...builders[m.operation]! });
  for (let i = queue.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [queue[i], queue[j]] = [queue[j]!, queue[i]!];
  }

  // The stream as the deployed mapping reads it: the sample's records are collected (the running
  // processor held back) and handed over in batches once the calls are made (settleInBatches).
  const collector = options.streams && options.settle ? await collectStream(options.settings, options.settle, options.streams) : undefined;
  const callsBy = new Map<string, number>();
  const ledgers = new Map<string, KeyLedger>(mix.map((m) => [m.operation, newLedger()]));
  const perCall = new Map<string, { requests: number; rcu: number; wcu: number; failures: number }>(mix.map((m) => [m.operation, { requests: 0, rcu: 0, wcu: 0, failures: 0 }]));
  const asked = watchSharedHeads();
  for (const call of queue) {
    const ledger = ledgers.get(call.op)!;
    const before = totals(ledger);
    const request = call.build();
    const caller = new URLSearchParams(request.path.split('?')[1] ?? '').get('openid');
    if (caller) callsBy.set(caller, (callsBy.get(caller) ?? 0) + 1);
    const response = await recordKeys(ledger, () => invoke(request));
    if (response.status !== call.expect) perCall.get(call.op)!.failures += 1;
    if (call.op === 'get_next_list' && response.status === 200) {
      lastPage.set(caller!, (((response.body.data as { list?: { vid: string }[] } | undefined)?.list) ?? []).map((v) => v.vid));
    }
    const after = totals(ledger);
    const f = perCall.get(call.op)!;
    f.requests += after.requests - before.requests;
    f.rcu += after.rcu - before.rcu;
    f.wcu += after.wcu - before.wcu;
  }
  const factor = 1 / scale;
  const streamLedger = newLedger();
  const movesLedger = newLedger();
  // Likes are uniform over the catalog: each video's likes a second.
  const likesPerVideo = mix.find((m) => m.operation === 'like')!.rate / catalog.length;
  const keyMovesPerSecond = catalog.length * Math.min(likesPerVideo, 1000 / TREND_KEY_INTERVAL_MS);
  const streamProcessor = collector ? await settleInBatches(collector, { processor: streamLedger, moves: movesLedger }, ledgers, factor, keyMovesPerSecond) : undefined;
  if (streamProcessor) ledgers.set('stream processor', streamLedger);
  if (streamProcessor) ledgers.set('trend key moves', movesLedger);
  const note = streamProcessor
    ? `the stream processor's writes (derived counters) included: the sample's records handed over as deployed, in batches of up to ${streamProcessor.batchSize} per shard and ${streamProcessor.windowSeconds} s window, over ${streamProcessor.sampledShards} shards (${streamProcessor.streamShardsAtMix} at the mix)`
    : 'no stream processor ran: derived counters not in the figures';

  // Rates: a shared key carries every op's sampled units times (rate / sampled). A key of one caller
  // (their account, feed state, likes) carries what that caller's sampled calls put on it, at
  // CALLER_RATE calls a second: the sample's 200 callers stand for a far larger population, so
  // scaling their keys with the whole mix would make each of them as busy as 1/200 of all traffic.
  const callerIds = callers.map((c) => c.openid);
  const ownerOf = (key: string) => callerIds.find((id) => key.includes(id));
  const factorOf = new Map<string, number>([
    ...mix.map((m): [string, number] => [m.operation, m.sampled > 0 ? m.rate / m.sampled : 0]),
    ['stream processor', factor],
    // A sampled move stands for the moves a second the throttle allows, not for 10 a second (settleInBatches).
    ['trend key moves', streamProcessor && streamProcessor.keyMovesSampled > 0 ? keyMovesPerSecond / streamProcessor.keyMovesSampled : 0],
  ]);
  const partitions = new Map<string, HotspotRow>();
  const items = new Map<string, HotspotRow>();
  for (const [name, ledger] of ledgers) {
    const factor = factorOf.get(name) ?? 0;
    const rate = (key: string) => {
      const owner = ownerOf(key);
      return owner ? CALLER_RATE / (callsBy.get(owner) ?? 1) : factor;
    };
    for (const p of ledger.partitions.values()) if (!p.partition.startsWith(HEAD_READ)) addRates(partitions, p.partition, p.wcu, p.rcu, p.requests, rate(p.partition));
    for (const p of ledger.items.values()) addRates(items, p.item, p.wcu, p.rcu, 0, rate(p.item));
  }

  const sharedHeads = await sharedHeadsModel({ ledgers, asked: asked(), factorOf, mix, builders, into: partitions });

  const names = new Map<string, string>([[editor!.openid, '<editor>'], [trending, '<trending vid>']]);
  for (const c of callers) names.set(c.openid, '<caller>');
  for (const a of authors) names.set(a, '<author>');
  const label = (key: string) => {
    let out = key.replace(/^\S*?(hub|api_keys)(\/\S+)? /, (_, t: string, i: string | undefined) => `${t}${i ?? ''} `);
    for (const [id, name] of names) out = out.split(id).join(name);
    return out.replace(/VIDEO#(he|ho)[0-9a-z]{6}/g, 'VIDEO#<vid>');
  };
  const rows = (map: Map<string, HotspotRow>, by: 'wcuPerSecond' | 'rcuPerSecond', n: number) =>
    [...map.values()].sort((a, b) => b[by] - a[by]).slice(0, n).map((r) => ({ ...r, key: label(r.key), wcuPerSecond: round(r.wcuPerSecond, 1), rcuPerSecond: round(r.rcuPerSecond, 1), requestsPerSecond: round(r.requestsPerSecond, 1) }));
  const busiestWritePartitions = rows(partitions, 'wcuPerSecond', 10);
  const busiestReadPartitions = rows(partitions, 'rcuPerSecond', 10);
  const busiestItems = rows(items, 'wcuPerSecond', 6);
  const worstPartitionWcu = busiestWritePartitions[0]!;
  const worstPartitionRcu = busiestReadPartitions[0]!;
  const worstItemWcu = busiestItems[0]!;

  const mixRows = mix.map((m) => {
    const f = perCall.get(m.operation)!;
    const n = Math.max(1, m.sampled);
    return { ...m, requestsPerCall: round(f.requests / n, 2), rcuPerCall: round(f.rcu / n, 2), wcuPerCall: round(f.wcu / n, 2), failures: f.failures };
  });
  printTable('Traffic mix at 100x (sampled calls through the handlers)', ['operation', 'calls/s', 'sampled', 'requests/call', 'RCU/call', 'WCU/call', 'not as expected', 'what'], mixRows.map((m) => [m.operation, m.rate, m.sampled, m.requestsPerCall, m.rcuPerCall, m.wcuPerCall, m.failures, m.description]));
  const table = (title: string, list: HotspotRow[]) => printTable(title, ['key', 'WCU/s', 'RCU/s', 'requests/s'], list.map((r) => [r.key, r.wcuPerSecond, r.rcuPerSecond, r.requestsPerSecond]));
  table('Busiest partition keys by writes (table or index partition)', busiestWritePartitions);
  table('Busiest partition keys by reads', busiestReadPartitions);
  table('Busiest items by writes', busiestItems);
  const withinLimits = worstPartitionWcu.wcuPerSecond <= PARTITION_LIMITS.wcu && worstPartitionRcu.rcuPerSecond <= PARTITION_LIMITS.rcu;
  if (streamProcessor) {
    printTable('Stream processor as deployed (sampled records in modelled batches)', ['batch size', 'window s', 'parallelization', 'stream shards at the mix', 'sampled shards', 'records', 'batches', 'requests', 'WCU/s', 'key interval s', 'key moves sampled', 'key moves/s', 'moves WCU/s'], [
      [streamProcessor.batchSize, streamProcessor.windowSeconds, streamProcessor.parallelization, streamProcessor.streamShardsAtMix, streamProcessor.sampledShards, streamProcessor.factRecords, streamProcessor.batches, streamProcessor.transactions, streamProcessor.wcuPerSecond, streamProcessor.keyIntervalSeconds, streamProcessor.keyMovesSampled, streamProcessor.keyMovesPerSecond, streamProcessor.keyMovesWcuPerSecond],
    ]);
  }
  console.log(`per-partition limits ${PARTITION_LIMITS.wcu} WCU/s, ${PARTITION_LIMITS.rcu} RCU/s: ${withinLimits ? 'within' : 'EXCEEDED'}; ${note}`);
  return {
    mix: mixRows,
    world: { videos: CATALOG, editorVideos: editorVids.length, authors: 1 + OTHER_AUTHORS, callers: CALLERS },
    busiestWritePartitions,
    busiestReadPartitions,
    busiestItems,
    sharedHeads,
    limits: PARTITION_LIMITS,
    worstPartitionWcu,
    worstPartitionRcu,
    worstItemWcu,
    withinLimits,
    note,
    ...(streamProcessor ? { streamProcessor } : {}),
  };
}

interface Collector {
  /** Every record written since the collector started, and not yet taken. */
  take(): Promise<ChangeRecord[]>;
  stop(): Promise<void>;
}

/** Holds the running processor back and reads the stream itself from now on (records before now are applied first). */
async function collectStream(settings: Record<string, string>, settle: () => Promise<void>, streams: { pause(): Promise<void>; resume(): void }): Promise<Collector> {
  await settle();
  await streams.pause();
  let records: ChangeRecord[] = [];
  const poller = await startStreamPoller({ endpoint: settings.DYNAMODB_ENDPOINT!, table: settings.HUB_TABLE!, background: false, apply: async (batch) => (records.push(...batch), {}) });
  await poller.settle();
  records = [];
  return {
    async take() {
      await poller.settle();
      const taken = records;
      records = [];
      return taken;
    },
    async stop() {
      await poller.stop();
      streams.resume();
    },
  };
}

/**
 * The stream processor as deployed (lib/features/streams/batching.ts): the mapping filters the stream to
 * likes and comments and invokes per stream shard with up to `batchSize` records gathered over
 * `windowSeconds`. A record's stream shard follows its item's partition key; at the mix the table
 * has at least one partition (and stream shard) per 1,000 WCU/s of its writes. The sample stands for
 * 1/factor of a second, so its records are spread over shards/(factor x window) modelled shards:
 * each then holds what one stream shard gathers in one window, and the batches' writes, times
 * factor, are the processor's load a second.
 */
async function settleInBatches(collector: Collector, into: { processor: KeyLedger; moves: KeyLedger }, calls: Map<string, KeyLedger>, factor: number, keyMovesPerSecond: number): Promise<StreamModel> {
  const records = (await collector.take()).filter((r) => factOf(r) !== undefined);
  let tableWcu = 0;
  for (const ledger of calls.values()) for (const p of ledger.partitions.values()) if (!p.partition.split(' ')[0]!.includes('/')) tableWcu += p.wcu;
  const streamShardsAtMix = Math.max(1, Math.ceil((tableWcu * factor) / PARTITION_LIMITS.wcu));
  const sampledShards = Math.max(1, Math.round(streamShardsAtMix / (factor * COUNTER_BATCHING.windowSeconds)));
  const shards: ChangeRecord[][] = Array.from({ length: sampledShards }, () => []);
  const pkOf = (r: ChangeRecord) => String(((r.dynamodb?.NewImage ?? r.dynamodb?.OldImage)?.pk as { S?: string } | undefined)?.S);
  for (const r of records) shards[shardOf(pkOf(r), sampledShards)]!.push(r);
  let batches = 0;
  let keyMovesSampled = 0;
  const before = into.processor.requests;
  // The sample is one instant of the mix (a tenth of a second): time stands still while it settles, so
  // a video moves its key at most once in it, and each move stands for the moves a second the
  // throttle allows at the mix (keyMovesPerSecond over the moves sampled). The decision's read
  // (dueTrendKeys) is per batch: it counts with the processor's batches.
  const now = clock.now();
  clock.set(now);
  forgetTrendKeys();
  try {
    await recordKeys(into.processor, async () => {
      for (const shard of shards) {
        for (let i = 0; i < shard.length; i += COUNTER_BATCHING.batchSize) {
          const outcome = await applyChangeRecords(shard.slice(i, i + COUNTER_BATCHING.batchSize), {
            moveKeys: async (vids) => {
              await recordedSoFar();
              const due = await dueTrendKeys(streamDb, vids);
              keyMovesSampled += (await recordKeys(into.moves, () => moveTrendKeys(streamDb, due))).moved;
            },
          });
          if (outcome.failedFrom !== undefined) throw outcome.error;
          batches++;
        }
      }
    });
  } finally {
    clock.reset();
    // Only now the running processor goes on: it finds these records applied (their markers).
    // Resumed before, it applied them alongside the model, on the model's ledger.
    await collector.stop();
  }
  const sum = (ledger: KeyLedger) => [...ledger.partitions.values()].reduce((s, p) => s + p.wcu, 0);
  return {
    ...COUNTER_BATCHING,
    streamShardsAtMix,
    sampledShards,
    factRecords: records.length,
    batches,
    transactions: into.processor.requests - before,
    wcuPerSecond: round(sum(into.processor) * factor, 1),
    keyIntervalSeconds: TREND_KEY_INTERVAL_MS / 1000,
    keyMovesSampled,
    keyMovesPerSecond: round(keyMovesPerSecond, 1),
    keyMovesWcuPerSecond: keyMovesSampled > 0 ? round((sum(into.moves) * keyMovesPerSecond) / keyMovesSampled, 1) : 0,
  };
}

function totals(ledger: KeyLedger) {
  // Table and index partitions together: every unit DynamoDB reported for the calls.
  let rcu = 0;
  let wcu = 0;
  for (const p of ledger.partitions.values()) [rcu, wcu] = [rcu + p.rcu, wcu + p.wcu];
  return { requests: ledger.requests, rcu, wcu };
}

function addRates(into: Map<string, HotspotRow>, key: string, wcu: number, rcu: number, requests: number, factor: number): void {
  const row = into.get(key) ?? { key, wcuPerSecond: 0, rcuPerSecond: 0, requestsPerSecond: 0 };
  row.wcuPerSecond += wcu * factor;
  row.rcuPerSecond += rcu * factor;
  row.requestsPerSecond += requests * factor;
  into.set(key, row);
}

// The feed's shared heads with warm containers -----------------------------------------------------

export interface SharedHeadsModel {
  /** How long a container keeps a head (lib/entities/catalog/shared-heads.ts HEAD_TTL_MS). */
  ttlSeconds: number;
  /** Warm containers of the hub function: the sum of calls/s x mean duration (Little's law). */
  containers: number;
  /** Per hub operation of the mix: its mean duration, measured here after the sample, unrecorded. */
  durations: { operation: string; rate: number; calls: number; meanMs: number }[];
  /** The most containers for which every head's partition stays within 3,000 RCU/s, its other reads included, at the measured read sizes. */
  containersWithin: number;
  heads: { key: string; askedPerSecond: number; readsPerSecond: number; rcuPerRead: number; rcuPerSecond: number }[];
}

/** The hub function's operations in the mix (POST /videos is the publishing function's). */
const HUB_OPERATIONS = ['like', 'comment_set', 'get_next_list'];
const DURATION_CALLS = { like: 40, comment_set: 20, get_next_list: 100 } as Record<string, number>;

/**
 * Counts, from now on, how often the sampled calls ask each head (kept or read), and records the
 * heads' Queries in rows of their own (bench/key-recorder.ts separateHeadReads). Returns the counts
 * by ledger partition name (`<table>/<index> <partition>`).
 */
function watchSharedHeads(): () => Map<string, number> {
  dropSharedHeads();
  const asked = new Map<string, number>();
  observeSharedHeads((name) => {
    // `<table> <index> <partition> <depth>`
    const [table, index, partition] = name.split(' ');
    const key = `${table}/${index} ${partition}`;
    asked.set(key, (asked.get(key) ?? 0) + 1);
  });
  const depthOf = (p: string) => (p.startsWith('VIDEOS#') ? HEAD_DEPTH.newest : p.startsWith('TRENDING#') ? HEAD_DEPTH.trending : p.startsWith('TAG#') ? HEAD_DEPTH.tag : p.startsWith('AUTHOR#') ? HEAD_DEPTH.author : undefined);
  separateHeadReads((input) => {
    const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
    const p = values[':p'];
    return typeof p === 'string' && /^gsi[123]pk = :p$/.test(String(input.KeyConditionExpression)) && !input.ExclusiveStartKey && input.Limit === depthOf(p);
  });
  return () => {
    observeSharedHeads(undefined);
    separateHeadReads(undefined);
    return asked;
  };
}

/**
 * The heads' reads at the mix. Each warm container of the hub function reads a head at most once
 * per HEAD_TTL_MS, so a head is read at most C / S times a second, and never more often than the
 * calls ask for it (its rate without the cache). C, the warm containers, is the mix's concurrency
 * by Little's law: the sum over the hub's operations of calls/s x mean duration, the durations
 * measured here, after the sample, without recording (see docs/performance.md, "Hotspots at 100x").
 * Each head's read size is the mean of its sampled reads (misses). Adds the heads' rates to `into`.
 */
async function sharedHeadsModel(options: {
  ledgers: Map<string, KeyLedger>;
  asked: Map<string, number>;
  factorOf: Map<string, number>;
  mix: MixEntry[];
  builders: Record<string, { build: () => BenchRequest }>;
  into: Map<string, HotspotRow>;
}): Promise<SharedHeadsModel> {
  const durations: SharedHeadsModel['durations'] = [];
  for (const m of options.mix.filter((e) => HUB_OPERATIONS.includes(e.operation))) {
    const calls = DURATION_CALLS[m.operation] ?? 20;
    let ms = 0;
    for (let i = 0; i < calls; i++) {
      const request = options.builders[m.operation]!.build();
      const t0 = performance.now();
      await invoke(request);
      ms += performance.now() - t0;
    }
    durations.push({ operation: m.operation, rate: m.rate, calls, meanMs: round(ms / calls, 1) });
  }
  const containers = round(durations.reduce((s, d) => s + (d.rate * d.meanMs) / 1000, 0), 1);
  const ttl = HEAD_TTL_MS / 1000;
  const heads: SharedHeadsModel['heads'] = [];
  // The most containers each head's partition takes within the limit, with its other reads (exploration past the head).
  let containersWithin = Infinity;
  const short = (key: string) => key.replace(/^\S*?(hub|api_keys)(\/\S+)? /, (_, t: string, i: string | undefined) => `${t}${i ?? ''} `);
  for (const [op, ledger] of options.ledgers) {
    const factor = options.factorOf.get(op) ?? 0;
    for (const row of ledger.partitions.values()) {
      if (!row.partition.startsWith(HEAD_READ)) continue;
      const key = row.partition.slice(HEAD_READ.length);
      const askedPerSecond = (options.asked.get(key) ?? row.requests) * factor;
      const readsPerSecond = Math.min(containers / ttl, askedPerSecond);
      const rcuPerRead = row.requests > 0 ? row.rcu / row.requests : 0;
      heads.push({ key: short(key), askedPerSecond: round(askedPerSecond, 1), readsPerSecond: round(readsPerSecond, 1), rcuPerRead: round(rcuPerRead, 2), rcuPerSecond: round(readsPerSecond * rcuPerRead, 1) });
      const into = options.into.get(key) ?? { key, wcuPerSecond: 0, rcuPerSecond: 0, requestsPerSecond: 0 };
      if (rcuPerRead > 0) containersWithin = Math.min(containersWithin, Math.floor(((PARTITION_LIMITS.rcu - into.rcuPerSecond) * ttl) / rcuPerRead));
      into.rcuPerSecond += readsPerSecond * rcuPerRead;
      into.requestsPerSecond += readsPerSecond;
      options.into.set(key, into);
    }
  }
  heads.sort((a, b) => b.rcuPerSecond - a.rcuPerSecond);
  printTable(`Shared heads: ${containers} warm containers of the hub (Little's law), each reading a head at most once per ${ttl} s`, ['operation', 'calls/s', 'timed calls', 'mean ms', 'containers'], durations.map((d) => [d.operation, d.rate, d.calls, d.meanMs, round((d.rate * d.meanMs) / 1000, 1)]));
  printTable('Shared heads: reads at the mix', ['head', 'asked/s', 'reads/s (min of C/S and asked)', 'RCU/read', 'RCU/s'], heads.slice(0, 12).map((h) => [h.key, h.askedPerSecond, h.readsPerSecond, h.rcuPerRead, h.rcuPerSecond]));
  return { ttlSeconds: ttl, containers, durations, containersWithin: Number.isFinite(containersWithin) ? containersWithin : 0, heads: heads.slice(0, 12) };
}

/**
 * One job of the training benchmark (bench/sections/training.ts), in a process of its own so its
 * peak RSS is its own and its heap may be larger (`--max-old-space-size`): BENCH_TRAINING_JOB (JSON)
 * is either a size (a world of interactions trained by `trainItemModel` itself under the sampling
 * profiler, which splits its time into phases; then the same world with 1 % more actions, to count
 * the lists an hourly refresh rewrites; and the DynamoDB items the refresh reads, sized) or a list of
 * catalog sizes at which the dense solve alone is timed. Writes its result as JSON to BENCH_RESULT_FILE.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { likeItem } from '../lib/entities/catalog/reaction-items.js';
import { videoKeys } from '../lib/entities/catalog/video-items.js';
import { easeWeights, gramMatrix, type SparseRow } from '../lib/features/recommend/ease.js';
import { feedKeys } from '../lib/features/recommend/feed-state.js';
import { neighbourItem, neighbourSignature, type NeighbourEntry } from '../lib/features/recommend/neighbour-items.js';
import { ITEM_MODEL, trainItemModel, type ItemModel } from '../lib/features/recommend/neighbours.js';
import { timeKey, SHARDS } from '../lib/platform/db/keys.js';
import { HUB_TABLE } from '../lib/platform/db/tables.js';
import { itemSizeBytes } from './item-size.js';
import { batchGetReadUnits, putWriteUnits, queryReadUnits } from './training-cost.js';
import { trainingWorld, type TrainingWorldSpec } from './training-world.js';

export type TrainingJob = { kind: 'size'; spec: TrainingWorldSpec; onePercent: boolean } | { kind: 'solve'; sizes: number[]; seed: number };

/** The phases of trainItemModel, by the functions the profiler saw on the stack (lib/features/recommend/ease.ts). */
const PHASES: Record<string, 'gram' | 'solve' | 'lists'> = { gramMatrix: 'gram', easeWeights: 'solve', invertInPlace: 'solve', topOfRow: 'lists' };

export interface SizeResult {
  interactions: number;
  videos: number;
  people: number;
  likes: number;
  views: number;
  model: { videos: number; people: number; entries: number; lists: number };
  /**
   * trainItemModel's CPU time (s: what one dedicated vCPU takes; the machine is shared, so its wall
   * time, also kept, is longer), and that CPU time split by the profiler's samples: grouping (its own
   * code: grouping, sorting, the rows), the validation that chooses the ridge penalty
   * (chooseLambdaShare: its own trainings at fewer videos), gram, solve, lists, and the garbage collector.
   */
  trainSeconds: number;
  trainWallSeconds: number;
  phases: { grouping: number; validation?: number; gram: number; solve: number; lists: number; gc: number };
  /** Peak RSS of the process (the world in memory, then the training), RSS with the world built, MB; the dense matrix, MB. */
  peakRssMb: number;
  worldRssMb: number;
  matrixMb: number;
  /** The refresh's reads, in DynamoDB request units (eventually consistent), with the requests they take. */
  reads: { catalog: number; likers: number; histories: number; states: number; previousLists: number; requests: number };
  listBytes: number;
  /**
   * After 1 % more actions: lists whose signature changed (rewritten), new, gone; their write units;
   * and of the rewritten, those whose members or order changed (the rest moved only their weights).
   */
  update?: { actions: number; rewritten: number; added: number; deleted: number; reordered: number; writeUnits: number; trainSeconds: number };
}

export interface SolveResult {
  /** The solve's CPU time (s) and wall time at n videos, and the entries of X it was built from. */
  points: { n: number; seconds: number; wallSeconds: number; entries: number }[];
}

const job = JSON.parse(process.env.BENCH_TRAINING_JOB ?? '{}') as TrainingJob;
const round = (x: number, digits = 3) => Number(x.toFixed(digits));
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

/** Projects an item as an index holds it (its keys, the table's, and the INCLUDE attributes it carries). */
function projected(item: Record<string, unknown>, indexName: string): Record<string, unknown> {
  const index = HUB_TABLE.globalIndexes.find((i) => i.indexName === indexName)!;
  const keep = new Set(['pk', 'sk', index.partitionKey.name, index.sortKey?.name, ...(index.nonKeyAttributes ?? [])]);
  return Object.fromEntries(Object.entries(item).filter(([k]) => keep.has(k)));
}

/** What a list entry carries besides its vid (author, tags, created, trend), of realistic lengths. */
const TAGS = ['drama', 'comedy', 'travel', 'cooking', 'science', 'music', 'sports', 'history', 'fashion', 'tech', 'nature', 'design'];
const fields = (vid: string, i: number) => ({
  vid,
  author_openid: `u_${String(i % 97).padStart(20, 'a')}`,
  tags: [TAGS[i % 12]!, TAGS[(i * 7 + 3) % 12]!, TAGS[(i * 5 + 1) % 12]!],
  created_at: '2026-10-14T08:31:07.512Z',
  trend: 12.34 + (i % 1000) / 7,
});

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
};

async function profiled<T>(fn: () => T): Promise<{ value: T; seconds: number; wallSeconds: number; phases: SizeResult['phases'] }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 5000 });
  await session.post('Profiler.start');
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const value = fn();
  const seconds = cpuSeconds(cpu0);
  const wallSeconds = (performance.now() - t0) / 1000;
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // A node's phase from the top down: anything under chooseLambdaShare is the validation; otherwise
  // the nearest phase function above it (or itself), trainItemModel's own code being the grouping.
  const phaseOf = new Map<number, keyof SizeResult['phases'] | undefined>();
  const classify = (id: number): keyof SizeResult['phases'] | undefined => {
    if (phaseOf.has(id)) return phaseOf.get(id);
    const name = byId.get(id)!.callFrame.functionName;
    const above = parent.has(id) ? classify(parent.get(id)!) : undefined;
    let phase: keyof SizeResult['phases'] | undefined;
    if (name === '(garbage collector)') phase = 'gc';
    else if (above === 'validation' || name === 'chooseLambdaShare') phase = 'validation';
    else if (PHASES[name]) phase = PHASES[name];
    else if (name === 'trainItemModel') phase = 'grouping';
    else phase = above;
    phaseOf.set(id, phase);
    return phase;
  };
  const phases = { grouping: 0, validation: 0, gram: 0, solve: 0, lists: 0, gc: 0 };
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const phase = classify(samples[i]!);
    if (phase) phases[phase] += (deltas[i + 1] ?? 0) / 1e6;
  }
  // The samples are wall-clock: their shares, applied to the CPU time.
  const sampled = Object.values(phases).reduce((s, t) => s + t, 0);
  const share = (t: number) => round(sampled > 0 ? (t / sampled) * seconds : 0);
  return { value, seconds, wallSeconds, phases: { grouping: share(phases.grouping), validation: share(phases.validation), gram: share(phases.gram), solve: share(phases.solve), lists: share(phases.lists), gc: share(phases.gc) } };
}

function entriesOf(model: ItemModel, index: Map<string, number>): Map<string, NeighbourEntry[]> {
  const out = new Map<string, NeighbourEntry[]>();
  for (const [vid, list] of model.lists) out.set(vid, list.map((n) => ({ ...fields(n.vid, index.get(n.vid)!), sim: n.sim })));
  return out;
}

async function sizeJob(spec: TrainingWorldSpec, onePercent: boolean): Promise<SizeResult> {
  const world = trainingWorld(spec);
  globalThis.gc?.();
  const worldRssMb = mb(process.memoryUsage().rss);
  const trained = await profiled(() => trainItemModel(world.actions, world.disliked));
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024);
  const model = trained.value;
  const index = new Map(world.vids.map((vid, i) => [vid, i]));
  const before = entriesOf(model, index);
  const listSize = new Map([...before.entries()].map(([vid, list]) => [vid, itemSizeBytes(neighbourItem(vid, list, '2026-11-29T12:00:00.000Z'))]));
  const listBytes = Math.round([...listSize.values()].reduce((s, b) => s + b, 0) / Math.max(1, listSize.size));

  // The reads of one refresh, item by item as the refresh reads them (lib/features/recommend/model-refresh.ts).
  const trendingBytes = new Array<number>(SHARDS.trending).fill(0);
  world.vids.forEach((vid, i) => {
    const f = fields(vid, i);
    const entry = projected({ ...videoKeys.video(vid), ...videoKeys.trendingIndex(vid, f.trend), vid, author_openid: f.author_openid, tags: f.tags, created_at: f.created_at }, 'gsi3');
    trendingBytes[i % SHARDS.trending]! += itemSizeBytes(entry);
  });
  const likerEntry = itemSizeBytes(projected(likeItem('u_aaaaaaaaaaaaaaaaaaaa', fields(world.vids[0]!, 0), '2026-10-14T08:31:07.512Z', 0.5), 'gsi2'));
  /** Views a history item carries: one get_next_list call's reports (MAX_VIEWED at most; 5, half a page opened, assumed). */
  const VIEWS_PER_HISTORY_ITEM = 5;
  const historyEntry = (openid: string, vids: number) =>
    itemSizeBytes(
      projected(
        { ...feedKeys.viewHistory(openid, '2026-10-14T08:31:07.512Z', 'k3x9q2m0'), gsi1pk: feedKeys.viewHistoryIndex(openid, '', []).gsi1pk, gsi1sk: timeKey('2026-10-14T08:31:07.512Z', Array(vids).fill(world.vids[0]).join(',')), entity: 'history', openid, seen_at: '2026-10-14T08:31:07.512Z' },
        'gsi1',
      ),
    );
  const liked = new Map<string, number>();
  for (const a of world.actions) if (a.kind === 'like') liked.set(a.openid, (liked.get(a.openid) ?? 0) + 1);
  const people = [...liked.keys()];
  const stateBytes = (openid: string) =>
    itemSizeBytes({
      ...feedKeys.feedState(openid),
      ...Object.fromEntries(TAGS.map((t) => [`t_${t}`, 12.3456])),
      tw: 40.123,
      lr: Array(Math.min(30, liked.get(openid)!)).fill(world.vids[0]),
      lc: liked.get(openid)!,
      ...(world.disliked.has(openid) ? { disliked: world.disliked.get(openid) } : {}),
    });
  let histories = 0;
  for (const openid of people) {
    const opened = world.openedBy.get(openid)!;
    const full = Math.floor(opened / VIEWS_PER_HISTORY_ITEM);
    const rest = opened % VIEWS_PER_HISTORY_ITEM;
    histories += queryReadUnits(full * historyEntry(openid, VIEWS_PER_HISTORY_ITEM) + (rest ? historyEntry(openid, rest) : 0));
  }
  const reads = {
    catalog: trendingBytes.reduce((s, b) => s + queryReadUnits(b), 0),
    likers: world.vids.reduce((s, vid) => s + queryReadUnits((world.likesOf.get(vid) ?? 0) * likerEntry), 0),
    histories,
    states: people.reduce((s, openid) => s + batchGetReadUnits(stateBytes(openid)), 0),
    // The lists the previous refresh wrote (a video without one still costs its read).
    previousLists: world.vids.reduce((s, vid) => s + batchGetReadUnits(listSize.get(vid) ?? 0), 0),
    requests: SHARDS.trending + world.vids.length + people.length + Math.ceil(people.length / 100) + Math.ceil(world.vids.length / 100),
  };

  let update: SizeResult['update'];
  if (onePercent) {
    const extra = world.more(Math.ceil(spec.interactions / 100));
    const cpu0 = process.cpuUsage();
    const after = entriesOf(trainItemModel([...world.actions, ...extra], world.disliked), index);
    const trainSeconds = cpuSeconds(cpu0);
    let rewritten = 0;
    let added = 0;
    let deleted = 0;
    let writeUnits = 0;
    let reordered = 0;
    const order = (list: NeighbourEntry[]) => list.map((e) => e.vid).join(',');
    for (const vid of world.vids) {
      const old = before.get(vid);
      const now = after.get(vid);
      if (!now) {
        if (old) {
          deleted++;
          writeUnits += putWriteUnits(itemSizeBytes(neighbourItem(vid, old, '')));
        }
        continue;
      }
      if (!old) added++;
      else if (neighbourSignature(old) === neighbourSignature(now)) continue;
      if (old && order(old) !== order(now)) reordered++;
      rewritten++;
      writeUnits += putWriteUnits(itemSizeBytes(neighbourItem(vid, now, '2026-11-29T13:00:00.000Z')));
    }
    update = { actions: extra.length, rewritten, added, deleted, reordered, writeUnits, trainSeconds: round(trainSeconds, 2) };
  }
  return {
    interactions: world.actions.length,
    videos: spec.videos,
    people: spec.people,
    likes: world.likes,
    views: world.views,
    model: { videos: model.videos, people: model.people, entries: model.entries, lists: model.lists.size },
    trainSeconds: round(trained.seconds, 2),
    trainWallSeconds: round(trained.wallSeconds, 2),
    phases: trained.phases,
    peakRssMb,
    worldRssMb,
    matrixMb: mb(8 * model.videos ** 2),
    reads: Object.fromEntries(Object.entries(reads).map(([k, v]) => [k, round(v, 1)])) as SizeResult['reads'],
    listBytes,
    update,
  };
}

/** The solve alone (easeWeights: the ridge, the sweep, the weights) on the gram matrix of a world of `n` videos, 30 interactions a video. */
function solveJob(sizes: number[], seed: number): SolveResult {
  const points: SolveResult['points'] = [];
  for (const n of sizes) {
    const world = trainingWorld({ interactions: 30 * n, videos: n, people: Math.ceil(1.6 * n), seed: seed + n });
    const index = new Map(world.vids.map((vid, i) => [vid, i]));
    const byPerson = new Map<string, Map<number, number>>();
    for (const a of world.actions) {
      const row = byPerson.get(a.openid) ?? new Map<number, number>();
      row.set(index.get(a.vid)!, Math.max(row.get(index.get(a.vid)!) ?? 0, a.kind === 'like' ? 1 : ITEM_MODEL.viewWeight));
      byPerson.set(a.openid, row);
    }
    const rows: SparseRow[] = [...byPerson.values()].map((r) => ({ items: [...r.keys()], values: [...r.values()] }));
    const gram = gramMatrix(rows, n);
    let trace = 0;
    for (let i = 0; i < n; i++) trace += gram[i * n + i]!;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    easeWeights(gram, n, Math.max(ITEM_MODEL.minLambda, (ITEM_MODEL.lambdaShares[0]! * trace) / n));
    points.push({ n, seconds: round(cpuSeconds(cpu0)), wallSeconds: round((performance.now() - t0) / 1000), entries: world.actions.length });
    console.log(`  solve alone at n = ${n}: ${points.at(-1)!.seconds} s CPU (${points.at(-1)!.wallSeconds} s wall)`);
  }
  return { points };
}

const result = job.kind === 'size' ? await sizeJob(job.spec, job.onePercent) : solveJob(job.sizes, job.seed);
writeFileSync(process.env.BENCH_RESULT_FILE!, JSON.stringify(result));
process.exit(0);

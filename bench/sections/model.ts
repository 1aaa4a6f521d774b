import { likeItem } from '../../lib/entities/catalog/reaction-items.js';
import { tableNames } from '../../lib/platform/db/client.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { refreshRecommendationModel } from '../../lib/features/recommend/model-refresh.js';
import { seededRandom } from '../../lib/platform/seeded-random.js';
import { importCatalog } from '../catalog.js';
import { printTable } from '../format.js';
import { signUp } from '../fixtures.js';
import { hubRequest, invoke } from '../invoke.js';
import { costOf, recordDb, type CostFigures } from '../recorder.js';
import { batchWrite, seedAccounts } from '../seed.js';
import { batchGetHubItems } from '../../lib/platform/db/batch.js';
import { feedKeys, LIKED_RECENT_CAP } from '../../lib/features/recommend/feed-state.js';

/**
 * The feed's learned model (docs/feed.md, "The learned model"; docs/performance.md, "The feed's
 * learned model"): worlds of likes of two sizes (the larger one the size of MovieLens 100K's likes:
 * 1,700 videos, 950 people, about 55,000 likes) written as the like operation writes them, with
 * twice as many views (videos opened and not liked, from the same tastes) written as get_next_list
 * writes its view history (5 to a history item), each world added to the store (the second refresh
 * reads both worlds), then the refresh as the scheduled function runs it: from scratch, again with
 * nothing changed, and after 1 % more likes. Per refresh: DynamoDB requests and capacity (the shared
 * client, as deployed), time and the training's own, the heap it grew by, the lists written and
 * their size. Then the request path: a person with 30 likes (the latest-likes list full) asks for
 * rec; the BatchGet that carries the neighbour lists, counted. The training's cost at larger sizes:
 * bench/sections/training.ts.
 */
export interface ModelRow {
  world: string;
  videos: number;
  people: number;
  likes: number;
  scratch: RefreshFigures;
  unchanged: RefreshFigures;
  afterOnePercent: RefreshFigures;
  /** Average stored size of a neighbour list (bytes of its attributes as JSON: about DynamoDB's item size). */
  listBytes: number;
}

interface RefreshFigures {
  /** The whole store's (the worlds before this one included). */
  videos: number;
  likes: number;
  /** Views read from the likers' histories, and the people whose actions were read. */
  views: number;
  people: number;
  /** The trained matrix: its videos and entries, and the training's own time (ms, in the refresh's). */
  model: { videos: number; entries: number; trainMs: number };
  ms: number;
  written: number;
  deleted: number;
  lists: number;
  cost: Omit<CostFigures, 'commands'>;
  /** Heap growth during the refresh, MB (a lower bound of what the build holds). */
  heapMb: number;
}

export interface ModelResult {
  rows: ModelRow[];
  /** One rec call of a person with LIKED_RECENT_CAP likes whose lists exist. */
  request: { requests: number; rcu: number; batchGetRcu: number; lists: number };
}

const WORLDS = [
  { world: 'small', videos: 1000, people: 500, meanLikes: 20 },
  { world: 'MovieLens-100K size', videos: 1700, people: 950, meanLikes: 58 },
];
const GROUPS = 20;

/**
 * People with a latent taste (one of GROUPS groups of videos): long-tailed like counts, 80 % in their
 * group, popular videos first; with `viewsPerLike`, as many more videos per like opened and not liked,
 * drawn the same way.
 */
function worldLikes(vids: string[], people: string[], meanLikes: number, seed: number, viewsPerLike = 0): { openid: string; vid: string; view?: true }[] {
  const random = seededRandom(seed);
  const likes: { openid: string; vid: string; view?: true }[] = [];
  const groupOf = (i: number) => i % GROUPS;
  const inGroup = Array.from({ length: GROUPS }, (_, g) => vids.filter((_, i) => groupOf(i) === g));
  // Zipf-like popularity inside a group: the first videos of a group are liked most.
  const pick = (list: string[]) => list[Math.floor(list.length * random() ** 2)]!;
  for (const openid of people) {
    const group = inGroup[Math.floor(random() * GROUPS)]!;
    const count = Math.max(5, Math.round(-Math.log(1 - random()) * meanLikes));
    const mine = new Set<string>();
    for (let tries = 0; mine.size < count && tries < count * 5; tries++) mine.add(random() < 0.8 ? pick(group) : pick(vids));
    for (const vid of mine) likes.push({ openid, vid });
    if (viewsPerLike === 0) continue;
    const opened = new Set<string>();
    for (let tries = 0; opened.size < count * viewsPerLike && tries < count * viewsPerLike * 5; tries++) {
      const vid = random() < 0.8 ? pick(group) : pick(vids);
      if (!mine.has(vid)) opened.add(vid);
    }
    for (const vid of opened) likes.push({ openid, vid, view: true });
  }
  return likes;
}

/** A person's views as get_next_list stores them (lib/features/recommend/feed.ts): history items of 5 vids, the vids in the gsi1 sort key. */
function historyItems(views: { openid: string; vid: string }[], seenAt: (i: number) => string): Record<string, unknown>[] {
  const byPerson = new Map<string, string[]>();
  for (const v of views) byPerson.set(v.openid, [...(byPerson.get(v.openid) ?? []), v.vid]);
  const items: Record<string, unknown>[] = [];
  for (const [openid, vids] of byPerson) {
    for (let i = 0; i < vids.length; i += 5) {
      const at = seenAt(items.length);
      items.push({ ...feedKeys.viewHistory(openid, at, `b${i}`), ...feedKeys.viewHistoryIndex(openid, at, vids.slice(i, i + 5)), entity: 'history', openid, seen_at: at });
    }
  }
  return items;
}

async function refresh(): Promise<RefreshFigures> {
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  let heapPeak = heapBefore;
  const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 20);
  const t0 = performance.now();
  const { result, requests } = await recordDb(() => refreshRecommendationModel());
  const ms = Math.round(performance.now() - t0);
  clearInterval(sampler);
  const { commands: _commands, ...cost } = costOf(requests);
  return { videos: result.videos, likes: result.likes, views: result.views, people: result.people, model: { videos: result.model.videos, entries: result.model.entries, trainMs: result.model.trainMs }, ms, written: result.written, deleted: result.deleted, lists: result.lists, cost, heapMb: Math.round(((heapPeak - heapBefore) / 2 ** 20) * 10) / 10 };
}

export async function modelSection({ quick }: { quick: boolean }): Promise<ModelResult> {
  const rows: ModelRow[] = [];
  const nowMs = Date.now();
  for (const [w, spec] of (quick ? WORLDS.slice(0, 1) : WORLDS).entries()) {
    const author = (await seedAccounts(`mdl${w}a`, 1))[0]!;
    const vids = await importCatalog(author, 0, spec.videos, { prefix: `m${w}v`, lean: true, nowMs });
    const people = await seedAccounts(`mdl${w}p`, spec.people);
    const actions = worldLikes(vids, people, spec.meanLikes, 40 + w, 2);
    const likes = actions.filter((a) => !a.view);
    const video = (vid: string) => ({ vid, author_openid: author, created_at: new Date(nowMs).toISOString() });
    const at = (i: number) => new Date(nowMs - (actions.length - i) * 1000).toISOString();
    await batchWrite(tableNames.hub, likes.map((l, i) => likeItem(l.openid, video(l.vid), at(i), 0)));
    await batchWrite(tableNames.hub, historyItems(actions.filter((a) => a.view), at));
    const scratch = await refresh();
    const unchanged = await refresh();
    const more = worldLikes(vids, people.slice(0, Math.ceil(spec.people / 10)), spec.meanLikes / 10, 90 + w).slice(0, Math.ceil(likes.length / 100));
    await batchWrite(tableNames.hub, more.map((l) => likeItem(l.openid, video(l.vid), new Date(nowMs).toISOString(), 0)));
    const afterOnePercent = await refresh();
    const sample = await batchGetHubItems(vids.slice(0, 100).map((vid) => videoKeys.neighbours(vid)));
    const sizes = [...sample.values()].map((item) => Buffer.byteLength(JSON.stringify(item)));
    rows.push({
      world: spec.world,
      videos: spec.videos,
      people: spec.people,
      likes: likes.length,
      scratch,
      unchanged,
      afterOnePercent,
      listBytes: Math.round(sizes.reduce((s, n) => s + n, 0) / Math.max(1, sizes.length)),
    });
  }

  // The request path: as many real likes as the latest-likes list holds (LIKED_RECENT_CAP), then rec.
  const person = await signUp();
  const liked = (await batchGetHubItems(Array.from({ length: LIKED_RECENT_CAP }, (_, i) => videoKeys.neighbours(`m0v${i.toString(36).padStart(6, '0')}`)))).size;
  for (let i = 0; i < LIKED_RECENT_CAP; i++) {
    const res = await invoke(hubRequest('like', { openid: person.openid, token: person.token, vid: `m0v${i.toString(36).padStart(6, '0')}` }));
    if (res.status !== 200) throw new Error(`like answered ${res.status}`);
  }
  const { requests } = await recordDb(() => invoke(hubRequest('get_next_list', { openid: person.openid, token: person.token, cmd: 'refresh', watch_count: 10 })));
  const cost = costOf(requests);
  const batch = requests.filter((r) => r.command === 'BatchGetItemCommand');
  const request = { requests: cost.requests, rcu: cost.rcu, batchGetRcu: Math.max(0, ...batch.map((r) => r.capacity ?? 0)), lists: Math.min(LIKED_RECENT_CAP, liked) };

  const fig = (f: RefreshFigures) => [f.ms, f.model.trainMs, f.cost.requests, f.cost.rcu, f.cost.wcu, f.written, f.deleted, f.heapMb];
  printTable(
    'The learned model: one refresh (scratch / unchanged / after 1 % more likes)',
    ['world', 'videos in store', 'likes in store', 'views', 'people', 'model videos', 'entries', 'lists', 'list bytes', 'ms', 'train ms', 'requests', 'RCU', 'WCU', 'written', 'deleted', 'heap MB', 'ms (unchanged)', 'RCU', 'WCU', 'written', 'ms (+1 %)', 'WCU', 'written'],
    rows.map((r) => [r.world, r.scratch.videos, r.scratch.likes, r.scratch.views, r.scratch.people, r.scratch.model.videos, r.scratch.model.entries, r.scratch.lists, r.listBytes, ...fig(r.scratch), r.unchanged.ms, r.unchanged.cost.rcu, r.unchanged.cost.wcu, r.unchanged.written, r.afterOnePercent.ms, r.afterOnePercent.cost.wcu, r.afterOnePercent.written]),
  );
  printTable(`The request path: rec of a person with ${LIKED_RECENT_CAP} likes`, ['requests', 'RCU', 'RCU of the BatchGet with the lists'], [[request.requests, request.rcu, request.batchGetRcu]]);
  return { rows, request };
}

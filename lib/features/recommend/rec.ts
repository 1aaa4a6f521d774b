import { cachedTagFrequencies, MAX_TAGS_PER_READ, readTagFrequencies, type TagFrequencies } from '../../entities/catalog/tag-stats.js';
import type { VideoItem } from '../../entities/catalog/video-items.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { videoKeys } from '../../entities/catalog/video-items.js';
import { NotFoundError } from '../../platform/errors.js';
import { encodeCursor } from './cursor.js';
import { LIMITS, spare, visible, type Context, type Found, type Key, type Outcome } from './feed-context.js';
import { FOLLOW_NEW_MAX_AGE_MS, LIKED_RECENT_CAP, RESERVOIR_CAP, type ReservoirEntry } from './feed-state.js';
import { CandidatePool, composePage, explorePlaces, noise, rankCandidates, type RankContext, type RankMode, type Scored, type Source } from './scoring.js';
import { neighbourCandidates } from './neighbour-items.js';
import { ITEM_MODEL, neighbourScores } from './neighbours.js';
import { authorVideos, latestCandidates, exploreStep, tagCandidates, trendingVideos, videoCandidate, type CandidateFields } from './sources.js';
import { distinctiveTags, idfOf, tasteProfile } from './taste.js';

// Gathering and picking, shared by rec and more like this --------------------------------------------

/** A stub carrying only what the final read needs to fetch the video. */
const stub = (vid: string, author: string) => ({ vid, author_openid: author }) as VideoItem;

/** Collects candidates and remembers the whole video items some sources return (no re-read needed). */
class Gatherer {
  readonly pool = new CandidatePool();
  readonly full = new Map<string, VideoItem>();
  videos(videos: VideoItem[], source: Source): void {
    for (const v of videos) {
      if (v.title) this.full.set(v.vid, v);
      this.pool.add(videoCandidate(v), source);
    }
  }
  candidates(candidates: CandidateFields[], source: Source): void {
    for (const c of candidates) this.pool.add(c, source);
  }
}

/**
 * One planned read of the call. `afterStats`: it needs the tag frequencies read in the same call
 * (the tag rankings to read depend on the taste's idf weights), so it runs once they are in. A read
 * that finds nothing to do returns false and gives its request back to the budget.
 */
interface Planned {
  read: () => Promise<boolean | void>;
  afterStats?: boolean;
}

/**
 * Runs the planned reads that fit the budget, in priority order: in parallel, those that need the
 * stats right after. Reads that gave their request back leave room for the next planned ones.
 */
async function readWithin(ctx: Context, planned: Planned[]): Promise<void> {
  let pending = planned;
  while (pending.length > 0) {
    const affordable = pending.slice(0, Math.max(0, spare(ctx)));
    if (affordable.length === 0) return;
    pending = pending.slice(affordable.length);
    ctx.used += affordable.length;
    let returned = 0;
    const run = async (p: Planned) => {
      if ((await p.read()) === false) returned++;
    };
    await Promise.all(affordable.filter((p) => !p.afterStats).map(run));
    await Promise.all(affordable.filter((p) => p.afterStats).map(run));
    ctx.used -= returned;
    if (returned === 0) return;
  }
}

/**
 * The tag frequencies a call needs, from the cache; when some are missing or stale, a planned read
 * (one BatchGet, first in priority) refreshes them and `current()` then answers with the read ones.
 */
function tagFrequencies(tags: string[]): { planned?: Planned; current: () => TagFrequencies } {
  const known = cachedTagFrequencies(tags);
  if (!known.stale || tags.length === 0) return { current: () => known.stats };
  return {
    planned: { read: () => readTagFrequencies(known.missing.length ? known.missing : tags) },
    current: () => cachedTagFrequencies(tags).stats,
  };
}

/**
 * The candidates of the learned model: every entry of the given lists, scored by the sum of the
 * weights the lists give it, each list weighted by its action (lib/features/recommend/neighbours.ts
 * neighbourScores).
 */
function neighboursOf(items: { item: Record<string, unknown> | undefined; weight: number }[]): CandidateFields[] {
  const lists = items.map(({ item, weight }) => ({ list: neighbourCandidates(item), weight }));
  const scores = neighbourScores(lists);
  const byVid = new Map<string, CandidateFields>();
  for (const { list } of lists) for (const { sim: _sim, ...c } of list) if (!byVid.has(c.vid)) byVid.set(c.vid, { ...c, cf: scores.get(c.vid) });
  return [...byVid.values()];
}

/** Keys one BatchGet takes (DynamoDB's limit). */
const BATCH_KEYS = 100;

/**
 * The caller's latest views whose lists the model reads: seen in the last 7 days (newest first), not
 * liked or disliked, as many as the BatchGet has room for (at most LIKED_RECENT_CAP).
 */
function recentViews(ctx: Context, room: number): string[] {
  const out: string[] = [];
  for (const vid of ctx.seen) {
    if (out.length >= Math.min(room, LIKED_RECENT_CAP)) break;
    if (!ctx.liked(vid) && !ctx.state.disliked.has(vid)) out.push(vid);
  }
  return out;
}

const toReservoir = ({ candidate: c }: Scored): ReservoirEntry => ({ vid: c.vid, a: c.author_openid, t: c.tags, c: c.created_at, tr: c.trend });
const fromReservoir = (e: ReservoirEntry): CandidateFields => ({ vid: e.vid, author_openid: e.a, tags: e.t ?? [], created_at: e.c, trend: e.tr ?? 0 });

function rankContext(ctx: Context, served: Set<string>, stats: TagFrequencies, exclude: (VideoItem | undefined)[], similar?: VideoItem): RankContext {
  const tagIdf = idfOf(stats);
  return {
    nowMs: ctx.nowMs,
    seed: ctx.seed,
    profile: ctx.req.viewer ? tasteProfile(ctx.state.tags, ctx.state.tasteTotal, stats) : new Map(),
    tagIdf,
    followedAuthors: new Set(ctx.followees),
    disliked: ctx.state.disliked,
    blocked: ctx.blocked,
    seen: ctx.seen,
    liked: ctx.liked,
    served,
    exclude: new Set(exclude.filter((v): v is VideoItem => !!v).map((v) => v.vid)),
    ...(similar ? { similarTo: { vid: similar.vid, tags: similar.tags ?? [], author_openid: similar.author_openid } } : {}),
  };
}

const rankedVideos = (picked: Scored[], g: Gatherer) => picked.map((s) => g.full.get(s.candidate.vid) ?? stub(s.candidate.vid, s.candidate.author_openid));

/** The caller's tags by the size of their raw weight, strongest first: whose frequencies matter. */
const tasteTags = (tags: Map<string, number>) =>
  [...tags.entries()]
    .sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]) || (a[0] < b[0] ? -1 : 1))
    .slice(0, MAX_TAGS_PER_READ)
    .map(([tag]) => tag);

/** A tag ranking worth reading: on at least two videos (a tag on one video offers nothing beyond it), or counts unknown. */
const usableTag = (stats: TagFrequencies) => (tag: string) => stats.total === 0 || (stats.df.get(tag) ?? 0) >= 2;

// rec ------------------------------------------------------------------------------------------------

/**
 * The personalised feed (docs/feed.md, "rec"). Free candidates from the state (the reservoir,
 * reserved follows left over); then, by priority while the budget lasts: the tag frequencies when
 * the cache lacks them, one BatchGet of the learned model's neighbour lists of the caller's latest
 * likes with the latest videos of followed accounts (and the shared video), the ranking of the caller's most distinctive tag, trending or the exploration walk (they
 * alternate between calls), the second most distinctive tag, the other of trending and exploration;
 * then more exploration while too few unseen candidates are known.
 */
export async function recommend(ctx: Context): Promise<Outcome> {
  const { req, state } = ctx;
  const personal = !!req.viewer;
  const served = req.refresh ? new Set<string>() : state.served;
  const sharedVid = ctx.sharedVid && !served.has(ctx.sharedVid) ? ctx.sharedVid : undefined;
  const g = new Gatherer();

  if (personal) g.candidates(state.followQueue.map(fromReservoir), 'follow');
  g.candidates(state.reservoir.map(fromReservoir), 'fresh');

  const frequencies = tagFrequencies(personal ? tasteTags(state.tags) : []);
  const hasTaste = personal && [...state.tags.values()].some((w) => w > 0);
  let batch: Found = new Map();
  const likedVids = personal ? [...new Set(state.likedRecent)] : [];
  const fixedKeys: Key[] = [...(sharedVid ? [videoKeys.video(sharedVid)] : []), ...ctx.followees.map((a) => videoKeys.authorLatest(a)), ...likedVids.map((vid) => videoKeys.neighbours(vid))];
  const viewedVids = personal ? recentViews(ctx, BATCH_KEYS - fixedKeys.length) : [];
  const batchKeys: Key[] = [...fixedKeys, ...viewedVids.map((vid) => videoKeys.neighbours(vid))];
  // Exploration walks the whole catalog across calls (a refresh does not restart it).
  let explore: string | null | undefined = state.explore;
  const heavy = ctx.seen.size > LIMITS.heavyViewer;
  const explorePage = async () => {
    const { videos, next } = await exploreStep(explore ?? undefined, heavy ? LIMITS.exploreDeep : LIMITS.explore);
    g.videos(videos, 'fresh');
    explore = next;
  };
  const trending = async () => g.videos(await trendingVideos(LIMITS.trending), 'trending');
  const [wide, otherWide] = noise(ctx.seed, 'wide') < 0.5 ? [trending, explorePage] : [explorePage, trending];
  // The distinctive tags are known once the frequencies are: the tag reads pick theirs then.
  let tags: string[] | undefined;
  const tagRead = (i: number): Planned => ({
    afterStats: !!frequencies.planned,
    read: async () => {
      const stats = frequencies.current();
      tags ??= distinctiveTags(tasteProfile(state.tags, state.tasteTotal, stats), 2, usableTag(stats));
      const tag = tags[i];
      if (!tag) return false;
      g.candidates(await tagCandidates(tag, LIMITS.tag), 'tag');
    },
  });
  // Too few unseen candidates: walk further into the catalog with what is left of the budget; the
  // next call resumes there.
  const unseen = (vid: string) => !state.disliked.has(vid) && !ctx.seen.has(vid) && !ctx.liked(vid) && !served.has(vid) && vid !== sharedVid;
  // A walk that began mid-catalog may wrap around to the top once, so one call can cover it all.
  let wrapped = state.explore === undefined;
  const exploreWhileShort = async () => {
    while (spare(ctx) > 0 && g.pool.values().filter((c) => unseen(c.vid)).length < req.count) {
      if (explore === null) {
        if (wrapped) return;
        wrapped = true;
        explore = undefined;
      }
      ctx.used++;
      await explorePage();
    }
  };

  const first: Planned[] = [];
  if (frequencies.planned) first.push(frequencies.planned);
  const batchRead: Planned = { read: async () => void (batch = (await batchGetHubItems(batchKeys)) as Found) };
  // With no like, follow or shared video the BatchGet would carry only the lists of the caller's
  // views: it then takes what the catalog reads leave (unseen videos first); otherwise the views'
  // lists ride in the BatchGet the call makes anyway.
  const viewListsOnly = fixedKeys.length === 0 && viewedVids.length > 0;
  if (batchKeys.length && !viewListsOnly) first.push(batchRead);
  if (heavy) {
    // A heavy viewer has seen most of what the rankings and trending hold: unseen videos come from
    // deep exploration first, and the taste's rankings get the requests left.
    await readWithin(ctx, [...first, { read: explorePage }]);
    await exploreWhileShort();
    if (viewListsOnly) await readWithin(ctx, [batchRead]);
    if (hasTaste) await readWithin(ctx, [tagRead(0), tagRead(1)]);
  } else {
    await readWithin(ctx, [...first, ...(hasTaste ? [tagRead(0)] : []), { read: wide }, ...(hasTaste ? [tagRead(1)] : []), { read: otherWide }]);
    await exploreWhileShort();
    if (viewListsOnly) await readWithin(ctx, [batchRead]);
  }

  const oldest = new Date(ctx.nowMs - FOLLOW_NEW_MAX_AGE_MS).toISOString();
  const followSince = state.followSince && state.followSince > oldest ? state.followSince : oldest;
  const followNew = new Set(state.followQueue.filter((e) => e.c > oldest).map((e) => e.vid));
  for (const author of ctx.followees) {
    const latest = latestCandidates(author, batch.get(itemId(videoKeys.authorLatest(author))));
    g.candidates(latest, 'follow');
    for (const c of latest) if (c.created_at > followSince) followNew.add(c.vid);
  }
  const shared = visible(ctx, sharedVid ? (batch.get(itemId(videoKeys.video(sharedVid))) as VideoItem | undefined) : undefined);
  const listOf = (vid: string) => batch.get(itemId(videoKeys.neighbours(vid)));
  const actions = [...likedVids.map((vid) => ({ item: listOf(vid), weight: 1 })), ...viewedVids.map((vid) => ({ item: listOf(vid), weight: ITEM_MODEL.viewWeight }))];
  g.candidates(neighboursOf(actions), 'neighbour');

  const rankCtx = { ...rankContext(ctx, served, frequencies.current(), [shared]), modelEvidence: actions.reduce((e, a) => e + (a.item ? a.weight : 0), 0) };
  const ranked = rankCandidates(g.pool.values(), rankCtx, personal ? 'personal' : 'anonymous');
  const count = req.count - (shared ? 1 : 0);
  const page = composePage(ranked, {
    count,
    followNew,
    explore: rankCtx.profile.size > 0 ? explorePlaces(count, ctx.seed) : 0,
    preCounted: shared ? [shared.author_openid] : [],
    nowMs: ctx.nowMs,
    seed: ctx.seed,
  });
  const videos = [...(shared ? [shared] : []), ...rankedVideos(page.picked, g)];
  return {
    videos,
    fav_index: videos.length > 0 ? await encodeCursor({ o: 'rec' }) : '',
    change: {
      served: videos.map((v) => v.vid),
      explore,
      // The best unseen candidates (picked or not) stay candidates for the next calls until viewed.
      reservoir: ranked.filter((s) => s.tier < 2).slice(0, RESERVOIR_CAP).map(toReservoir),
      ...(personal ? { follow: { since: new Date(ctx.nowMs).toISOString(), queue: page.followLeft.map(toReservoir) } } : {}),
    },
  };
}

// more like this ---------------------------------------------------------------------------------

/**
 * "More like this" (`vid`): the video's neighbours (read with the state), the rankings of its most
 * distinctive tags, its author's newest videos and trending, ranked by idf-weighted tag similarity.
 */
export async function moreLikeThis(ctx: Context): Promise<Outcome> {
  const { req, state, found } = ctx;
  const similar = found.get(itemId(videoKeys.video(req.similarTo!))) as VideoItem | undefined;
  if (!similar) throw new NotFoundError(`Video "${req.similarTo!.slice(0, 64)}" does not exist`);
  const served = req.refresh ? new Set<string>() : state.served;
  const sharedVid = ctx.sharedVid && !served.has(ctx.sharedVid) && ctx.sharedVid !== similar.vid ? ctx.sharedVid : undefined;
  const g = new Gatherer();
  g.candidates(neighboursOf([{ item: found.get(itemId(videoKeys.neighbours(similar.vid))), weight: 1 }]), 'neighbour');

  const frequencies = tagFrequencies(similar.tags ?? []);
  let tags: string[] | undefined;
  const tagRead = (i: number): Planned => ({
    afterStats: !!frequencies.planned,
    read: async () => {
      const stats = frequencies.current();
      const tagIdf = idfOf(stats);
      tags ??= [...new Set(similar.tags ?? [])].filter(usableTag(stats)).sort((a, b) => tagIdf(b) - tagIdf(a) || (a < b ? -1 : 1));
      const tag = tags[i];
      if (!tag) return false;
      g.candidates(await tagCandidates(tag, LIMITS.similarTag), 'tag');
    },
  });
  let shared: VideoItem | undefined;
  const planned: Planned[] = [];
  if (frequencies.planned) planned.push(frequencies.planned);
  if (sharedVid) planned.push({ read: async () => void (shared = visible(ctx, (await batchGetHubItems([videoKeys.video(sharedVid)])).get(itemId(videoKeys.video(sharedVid))) as VideoItem | undefined)) });
  planned.push(tagRead(0));
  planned.push({ read: async () => g.videos(await authorVideos(similar.author_openid, LIMITS.author), 'author') });
  for (let i = 1; i < LIMITS.similarTags; i++) planned.push(tagRead(i));
  planned.push({ read: async () => g.videos(await trendingVideos(LIMITS.trending), 'trending') });
  await readWithin(ctx, planned);

  const mode: RankMode = 'similar';
  const ranked = rankCandidates(g.pool.values(), rankContext(ctx, served, frequencies.current(), [shared, similar], similar), mode);
  const page = composePage(ranked, { count: req.count - (shared ? 1 : 0), preCounted: shared ? [shared.author_openid] : [], nowMs: ctx.nowMs, seed: ctx.seed });
  const videos = [...(shared ? [shared] : []), ...rankedVideos(page.picked, g)];
  return { videos, fav_index: videos.length > 0 ? await encodeCursor({ o: 'rec' }) : '', change: { served: videos.map((v) => v.vid) } };
}

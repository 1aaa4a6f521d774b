import type { VideoItem } from '../catalog/video-items.js';
import { batchGetHubItems, itemId } from '../db/batch.js';
import { hubItems } from '../db/hub-items.js';
import { NotFoundError } from '../errors.js';
import { encodeCursor } from './cursor.js';
import { LIMITS, spare, type Context, type Found, type Key, type Outcome } from './feed-context.js';
import { RESERVOIR_CAP, topTags, type ReservoirEntry } from './feed-state.js';
import { CandidatePool, noise, rankCandidates, selectList, type RankContext, type Source } from './scoring.js';
import { authorVideos, coLikeCandidates, latestCandidates, newestPage, tagCandidates, trendingVideos, videoCandidate, type CandidateFields } from './sources.js';

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

/** Runs the planned reads that fit the budget (in priority order), all in parallel. */
async function readWithin(ctx: Context, planned: (() => Promise<unknown>)[]): Promise<void> {
  const affordable = planned.slice(0, Math.max(0, spare(ctx)));
  ctx.used += affordable.length;
  await Promise.all(affordable.map((read) => read()));
}

function rankAndPick(ctx: Context, g: Gatherer, served: Set<string>, shared: VideoItem | undefined, similar?: VideoItem): { videos: VideoItem[]; reservoir: ReservoirEntry[] } {
  const { req, state } = ctx;
  const rankCtx: RankContext = {
    nowMs: ctx.nowMs,
    seed: ctx.seed,
    taste: state.tags,
    followedAuthors: new Set(ctx.followees),
    disliked: state.disliked,
    seen: ctx.seen,
    served,
    exclude: new Set([...(shared ? [shared.vid] : []), ...(similar ? [similar.vid] : [])]),
    ...(similar ? { similarTo: { vid: similar.vid, tags: similar.tags ?? [], author_openid: similar.author_openid } } : {}),
  };
  const ranked = rankCandidates(g.pool.values(), rankCtx, !!req.viewer);
  const picked = selectList(ranked, req.count - (shared ? 1 : 0), shared ? [shared.author_openid] : []);
  // The best unseen candidates (picked or not) stay candidates for the next calls until viewed.
  const reservoir = ranked
    .filter((s) => s.tier < 2)
    .slice(0, RESERVOIR_CAP)
    .map(({ candidate: c }) => ({ vid: c.vid, a: c.author_openid, t: c.tags, c: c.created_at, tr: c.trend }));
  return { videos: [...(shared ? [shared] : []), ...picked.map((s) => g.full.get(s.candidate.vid) ?? stub(s.candidate.vid, s.candidate.author_openid))], reservoir };
}

// rec ------------------------------------------------------------------------------------------------

export async function recommend(ctx: Context): Promise<Outcome> {
  const { req, state } = ctx;
  const personal = !!req.viewer;
  const served = req.refresh ? new Set<string>() : state.served;
  const sharedVid = ctx.sharedVid && !served.has(ctx.sharedVid) ? ctx.sharedVid : undefined;
  const g = new Gatherer();

  // Free: the co-liked videos kept in the state by like, and the unseen candidates of earlier calls.
  if (personal) g.candidates(state.coLiked.map((e) => ({ ...e, trend: 0, colike: e.n })), 'colike');
  g.candidates(state.reservoir.map((e) => ({ vid: e.vid, author_openid: e.a, tags: e.t ?? [], created_at: e.c, trend: e.tr ?? 0 })), 'fresh');

  let batch: Found = new Map();
  const batchKeys: Key[] = [...(sharedVid ? [hubItems.video(sharedVid)] : []), ...ctx.followees.map((a) => hubItems.authorLatest(a))];
  // Exploration walks the whole catalog across calls (a refresh does not restart it).
  let explore: string | null | undefined = state.explore;
  const heavy = ctx.seen.size > LIMITS.heavyViewer;
  const explorePage = async () => {
    const { videos, done } = await newestPage(explore ?? undefined, heavy ? LIMITS.exploreDeep : LIMITS.explore);
    g.videos(videos, 'fresh');
    const last = videos[videos.length - 1];
    explore = done || !last ? null : `${last.created_at}#${last.vid}`;
  };
  // One tag per call, drawn among the three strongest by weight: the list follows the taste and
  // still varies between calls.
  const top = personal ? topTags(state, 3) : [];
  let r = noise(ctx.seed, 'tag') * top.reduce((s, [, w]) => s + w, 0);
  const tag = top.find(([, w]) => (r -= w) < 0)?.[0] ?? top[0]?.[0];

  const planned: (() => Promise<unknown>)[] = [];
  if (batchKeys.length) planned.push(async () => (batch = (await batchGetHubItems(batchKeys)) as Found));
  planned.push(explorePage);
  if (tag) planned.push(async () => g.candidates(await tagCandidates(tag, LIMITS.tag), 'tag'));
  // A heavy viewer has most likely seen the trending top: that request goes to deeper exploration.
  if (!heavy) planned.push(async () => g.videos(await trendingVideos(LIMITS.trending), 'trending'));
  await readWithin(ctx, planned);

  for (const author of ctx.followees) g.candidates(latestCandidates(author, batch.get(itemId(hubItems.authorLatest(author)))), 'follow');
  const shared = sharedVid ? (batch.get(itemId(hubItems.video(sharedVid))) as VideoItem | undefined) : undefined;

  // Too few unseen candidates: walk further into the catalog with what is left of the budget; the
  // next call resumes there.
  const unseen = (vid: string) => !state.disliked.has(vid) && !ctx.seen.has(vid) && !served.has(vid) && vid !== shared?.vid;
  while (explore !== null && spare(ctx) > 0 && g.pool.values().filter((c) => unseen(c.vid)).length < req.count) {
    ctx.used++;
    await explorePage();
  }

  const { videos, reservoir } = rankAndPick(ctx, g, served, shared);
  return {
    videos,
    fav_index: videos.length > 0 ? encodeCursor({ o: 'rec' }) : '',
    change: { served: videos.map((v) => v.vid), explore, reservoir },
  };
}

// more like this ---------------------------------------------------------------------------------

export async function moreLikeThis(ctx: Context): Promise<Outcome> {
  const { req, state, found } = ctx;
  const similar = found.get(itemId(hubItems.video(req.similarTo!))) as VideoItem | undefined;
  if (!similar) throw new NotFoundError(`Video "${req.similarTo!.slice(0, 64)}" does not exist`);
  const served = req.refresh ? new Set<string>() : state.served;
  const sharedVid = ctx.sharedVid && !served.has(ctx.sharedVid) && ctx.sharedVid !== similar.vid ? ctx.sharedVid : undefined;
  const g = new Gatherer();
  g.candidates(coLikeCandidates(found.get(itemId(hubItems.coLikes(similar.vid)))), 'colike');

  let shared: VideoItem | undefined;
  const tags = (similar.tags ?? []).slice(0, LIMITS.similarTags);
  const tagRead = (t: string) => async () => g.candidates(await tagCandidates(t, LIMITS.similarTag), 'tag');
  const planned: (() => Promise<unknown>)[] = [];
  if (sharedVid) planned.push(async () => (shared = (await batchGetHubItems([hubItems.video(sharedVid)])).get(itemId(hubItems.video(sharedVid))) as VideoItem | undefined));
  if (tags[0]) planned.push(tagRead(tags[0]));
  planned.push(async () => g.videos(await authorVideos(similar.author_openid, LIMITS.author), 'author'));
  for (const t of tags.slice(1)) planned.push(tagRead(t));
  planned.push(async () => g.videos(await trendingVideos(LIMITS.trending), 'trending'));
  await readWithin(ctx, planned);

  const { videos } = rankAndPick(ctx, g, served, shared, similar);
  return { videos, fav_index: videos.length > 0 ? encodeCursor({ o: 'rec' }) : '', change: { served: videos.map((v) => v.vid) } };
}

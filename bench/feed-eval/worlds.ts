import { seededRandom } from '../../lib/platform/seeded-random.js';

/**
 * Synthetic worlds with planted structure for the feed's offline evaluation (docs/feed.md,
 * "Offline evaluation"). Pure: a spec and its seed give the same world every time. The world says
 * WHAT happens (who publishes, likes, dislikes, views, follows, and when); world-child.ts makes it
 * happen through the real operations.
 *
 * The structure a recommender must find, and what hides it:
 * - topics, each with a topic tag (and sub-topic tags on some of its videos), and a few generic tags
 *   from a small pool, ONE of which is on most videos (`dominantGenericShare`): shared tags say
 *   little about taste;
 * - authors who specialise in 1-3 home topics (rarely posting outside them), with skewed output;
 * - a latent quality per video that drives every like (crowd and evaluated users alike), so that
 *   popularity is informative but not personal;
 * - evaluated users with 1-2 favourite topics: likes mostly in them (by quality), 1-2 noise likes
 *   elsewhere, dislikes of off-topic videos, reported views (liked videos and others), follows of
 *   authors of their topics; 2-3 more likes in their topics are held out (the hidden truth);
 * - a crowd of background accounts with topic preferences of their own, so counts and co-likes
 *   exist; in a skewed world one topic draws far more of everyone's attention.
 */
export interface WorldSpec {
  name: string;
  seed: number;
  topics: number;
  videos: number;
  authors: number;
  users: number;
  crowd: number;
  /** Share of videos carrying the dominant generic tag ("expo"). */
  dominantGenericShare: number;
  /** Topic attention weights: 'uniform', or 'skewed' (topic 0 weighs `skew` times the others). */
  popularity: 'uniform' | 'skewed';
  skew?: number;
  /** Days over which the catalog was published, before "now". */
  days: number;
  /** Most home topics of one author (default 3; 1: every author specialises in one topic). */
  authorHomeTopics?: number;
  /** A video's latent quality: log-normal (default), or Zipf-like within each topic (rank r of a shuffled topic weighs 1 / r^zipfExponent). */
  quality?: 'lognormal' | 'zipf';
  zipfExponent?: number;
  /**
   * 'topics' (default): a topic tag on every video. 'genres': no topic is in the tags at all; each
   * video carries broad genre tags (GENRES, several per video, drawn from its latent topic's profile
   * of 2 likely genres) plus the generic ones, and only co-liking reveals the topics.
   */
  tagging?: 'topics' | 'genres';
  /**
   * Long-tailed like counts drawn from latent tastes (log-normal, clipped): each like picks a topic
   * by the actor's taste (85 % on the favourite topics), then an unliked video of it by quality.
   * Without it, the fixed counts described above.
   */
  likeCounts?: { user: LikeCount; crowd: LikeCount };
  /** The world kind this spec is a seed of (WORLD_KINDS); the spec's name is `<kind>-<seed>`. */
  kind?: string;
  /**
   * 'planted' (default): the planted-topic generator above (it gives the capped oracle). 'latent':
   * generateLatentWorld, statistics like real data's: `topics` are latent taste groups in no tag,
   * every person is evaluated on their last like in time (`users` people, no crowd).
   */
  generator?: 'planted' | 'latent';
  /** A thin-data world (few people, 3-15 likes each): the feed must reach 0.85x the capped oracle's HR@10. */
  thin?: boolean;
  /** 'latent': each person's like count, the held-out last like included (log-normal, clipped). */
  activity?: LikeCount;
  /** 'latent': the spread (sigma of the log) of the videos' appeal: the popularity tail. */
  appealSigma?: number;
  /** 'latent': videos opened and not liked, per like. */
  viewsPerLike?: number;
}

export interface LikeCount {
  median: number;
  sigma: number;
  min: number;
  max: number;
}

export const TOPIC_TAGS = [
  'solar',
  'robotics',
  'semiconductors',
  'logistics',
  'medical-devices',
  'automotive',
  'ai',
  'energy-storage',
  'aerospace',
  'agritech',
  'construction',
  'textiles',
  'chemicals',
  'food-processing',
  'shipbuilding',
  'printing',
] as const;

/** Broad, genre-like tags shared across latent topics (like MovieLens genres), for `tagging: 'genres'`. */
export const GENRES = ['industry', 'technology', 'business', 'science', 'consumer', 'innovation'];
const SUBTOPICS = ['systems', 'components', 'software', 'materials', 'services'];
/** The generic pool: the first is the dominant tag; the others are on a minority of videos each. */
const GENERIC = [
  { tag: 'expo', share: -1 },
  { tag: 'highlights', share: 0.25 },
  { tag: 'interview', share: 0.2 },
  { tag: '2026', share: 0.3 },
  { tag: 'booth-tour', share: 0.15 },
  { tag: 'new-product', share: 0.12 },
];

export const DAY_MS = 86_400_000;
/** "Now" of every world: a fixed instant, so a seed gives the same timestamps on every run. */
export const WORLD_NOW_MS = Date.UTC(2026, 11, 1);

export interface WorldVideo {
  key: string;
  topic: number;
  author: number;
  tags: string[];
  quality: number;
  createdMs: number;
  title: string;
  description: string;
  durationS: number;
}

export interface WorldAuthor {
  key: string;
  homeTopics: number[];
}

export type WorldEvent =
  | { at: number; kind: 'publish'; video: number }
  | { at: number; kind: 'like'; actor: Actor; video: number }
  | { at: number; kind: 'dislike'; actor: Actor; video: number }
  | { at: number; kind: 'view'; actor: Actor; videos: number[] }
  | { at: number; kind: 'follow'; actor: Actor; author: number };

/** An evaluated user (`user`) or a background account (`crowd`), by index. */
export interface Actor {
  group: 'user' | 'crowd';
  index: number;
}

export interface WorldUser {
  favourites: number[];
  liked: number[];
  /** Likes in the favourite topics that are NOT performed: the truth the feed should find. */
  heldOut: number[];
  /** 'latent' worlds: when each held-out like would have happened (after every like performed). */
  heldOutAt?: number[];
  disliked: number[];
  viewed: number[];
  follows: number[];
}

export interface World {
  spec: WorldSpec;
  /** Names of the topics; on the videos as tags only when `tagging` is 'topics'. */
  topicTags: string[];
  /** The tags (besides the dominant one) a new video of each topic carries: its topic tag, or its 2 likely genres. */
  freshTags: string[][];
  dominantTag: string;
  authors: WorldAuthor[];
  videos: WorldVideo[];
  users: WorldUser[];
  crowd: { favourites: number[]; liked: number[] }[];
  /** Every event in time order (publishes first at equal times). */
  events: WorldEvent[];
  nowMs: number;
}

type Rand = () => number;

const pickIndex = (rand: Rand, n: number) => Math.floor(rand() * n);

/** An index drawn with probability proportional to its weight. */
export function weightedIndex(rand: Rand, weights: readonly number[]): number {
  const total = weights.reduce((s, w) => s + w, 0);
  let r = rand() * total;
  for (let i = 0; i < weights.length; i++) {
    r -= weights[i]!;
    if (r < 0) return i;
  }
  return weights.length - 1;
}

/** `k` distinct items of `pool`, each draw proportional to `weight` (without replacement). */
export function weightedSample<T>(rand: Rand, pool: readonly T[], weight: (t: T) => number, k: number): T[] {
  const left = [...pool];
  const out: T[] = [];
  while (out.length < k && left.length > 0) {
    const i = weightedIndex(
      rand,
      left.map((t) => weight(t)),
    );
    out.push(left.splice(i, 1)[0]!);
  }
  return out;
}

/** A standard normal draw (Box-Muller). */
function normal(rand: Rand): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

const between = (rand: Rand, lo: number, hi: number) => lo + rand() * (hi - lo);

export function generateWorld(spec: WorldSpec): World {
  if (spec.generator === 'latent') return generateLatentWorld(spec);
  if (spec.topics > TOPIC_TAGS.length) throw new Error(`at most ${TOPIC_TAGS.length} topics`);
  const rand = seededRandom(spec.seed);
  const nowMs = WORLD_NOW_MS;
  const topicTags = TOPIC_TAGS.slice(0, spec.topics) as string[];
  const attention = topicTags.map((_, t) => (spec.popularity === 'skewed' && t === 0 ? (spec.skew ?? 6) : 1));
  const favouritesOf = (): number[] => {
    const first = weightedIndex(rand, attention);
    if (rand() < 0.5) return [first];
    const second = weightedIndex(
      rand,
      attention.map((w, t) => (t === first ? 0 : w)),
    );
    return [first, second];
  };

  // Authors: 1-3 home topics (the first covers every topic once before any repeats), skewed output.
  const authors: WorldAuthor[] = Array.from({ length: spec.authors }, (_, a) => {
    const home = [a % spec.topics];
    const most = spec.authorHomeTopics ?? 3;
    const extra = most <= 1 ? 0 : Math.min(most - 1, rand() < 0.5 ? 1 : rand() < 0.5 ? 2 : 0);
    while (home.length < 1 + extra) {
      const t = pickIndex(rand, spec.topics);
      if (!home.includes(t)) home.push(t);
    }
    return { key: `author${a}`, homeTopics: home };
  });
  const output = authors.map(() => Math.exp(0.6 * normal(rand)));
  // Genre profiles of the latent topics: 2 likely genres each (pairs may repeat across topics).
  const genreProfiles = spec.tagging === 'genres' ? topicTags.map(() => weightedSample(rand, GENRES, () => 1, 2)) : [];
  const genreTags = (topic: number): string[] => {
    const likely = genreProfiles[topic]!;
    const tags = GENRES.filter((g) => rand() < (likely.includes(g) ? 0.8 : 0.15));
    return tags.length ? tags : [likely[0]!];
  };

  const videos: WorldVideo[] = Array.from({ length: spec.videos }, (_, i) => {
    const author = weightedIndex(rand, output);
    const home = authors[author]!.homeTopics;
    // Mostly the author's home topics (the first most), rarely anything else.
    const topic = rand() < 0.9 ? home[weightedIndex(rand, home.map((_, k) => (k === 0 ? 2 : 1)))]! : pickIndex(rand, spec.topics);
    const tags = spec.tagging === 'genres' ? genreTags(topic) : [topicTags[topic]!];
    if (spec.tagging !== 'genres') {
      if (rand() < 0.5) tags.push(`${topicTags[topic]}-${SUBTOPICS[pickIndex(rand, SUBTOPICS.length)]}`);
      // A video about two topics now and then (its planted topic stays the first).
      if (rand() < 0.1) {
        const other = pickIndex(rand, spec.topics);
        if (other !== topic) tags.push(topicTags[other]!);
      }
    }
    for (const g of GENERIC) if (rand() < (g.share < 0 ? spec.dominantGenericShare : g.share)) tags.push(g.tag);
    const createdMs = Math.round(nowMs - between(rand, 0.05, spec.days) * DAY_MS);
    return {
      key: `v${i}`,
      topic,
      author,
      tags,
      quality: Math.exp(0.8 * normal(rand)),
      createdMs,
      title: spec.tagging === 'genres' ? `Expo report ${i}` : `${topicTags[topic]} report ${i}`,
      description: `Synthetic video ${i} of the evaluation world ${spec.name}.`,
      durationS: 30 + pickIndex(rand, 600),
    };
  });
  const byTopic = topicTags.map((_, t) => videos.map((v, i) => ({ v, i })).filter(({ v }) => v.topic === t).map(({ i }) => i));
  if (spec.quality === 'zipf') {
    // A few videos of each topic draw most of its likes.
    for (const members of byTopic) weightedSample(rand, members, () => 1, members.length).forEach((i, rank) => (videos[i]!.quality = 1 / (rank + 1) ** (spec.zipfExponent ?? 1)));
  }
  const quality = (i: number) => videos[i]!.quality;
  /**
   * `n` likes drawn from a latent taste: each picks a topic (85 % on the favourites, the rest spread
   * over the other topics; a topic whose videos are all liked drops out), then a video of it by quality.
   */
  const tasteDraw = (favourites: number[], n: number): number[] => {
    const taste = topicTags.map((_, t) => (favourites.includes(t) ? 0.85 / favourites.length : 0.15 / Math.max(1, spec.topics - favourites.length)));
    const left = byTopic.map((members) => [...members]);
    const out: number[] = [];
    while (out.length < n && left.some((m) => m.length > 0)) {
      const t = weightedIndex(
        rand,
        taste.map((w, k) => (left[k]!.length ? w : 0)),
      );
      const pool = left[t]!;
      out.push(pool.splice(weightedIndex(rand, pool.map(quality)), 1)[0]!);
    }
    return out;
  };
  const likeCount = (c: LikeCount) => Math.min(c.max, Math.max(c.min, Math.round(Math.exp(Math.log(c.median) + c.sigma * normal(rand)))));
  const events: WorldEvent[] = videos.map((v, i) => ({ at: v.createdMs, kind: 'publish' as const, video: i }));
  /** A reaction some time after the video appeared, within [from, to). */
  const reactionTime = (video: number, from: number, to: number) => {
    const start = Math.max(videos[video]!.createdMs + 60_000, from);
    return Math.round(start + rand() * Math.max(60_000, to - start));
  };

  // The crowd: preferences like the users', likes by quality in their topics, a little noise.
  const crowd = Array.from({ length: spec.crowd }, (_, c) => {
    const favourites = favouritesOf();
    let liked: number[];
    if (spec.likeCounts) liked = tasteDraw(favourites, likeCount(spec.likeCounts.crowd));
    else {
      const pool = favourites.flatMap((t) => byTopic[t]!);
      liked = weightedSample(rand, pool, quality, 4 + pickIndex(rand, 7));
      const others = videos.map((_, i) => i).filter((i) => !favourites.includes(videos[i]!.topic));
      liked.push(...weightedSample(rand, others, quality, pickIndex(rand, 3)));
    }
    for (const video of liked) events.push({ at: reactionTime(video, nowMs - spec.days * DAY_MS, nowMs - 3_600_000), kind: 'like', actor: { group: 'crowd', index: c }, video });
    return { favourites, liked };
  });

  // Evaluated users: active over the last 14 days.
  const activeFrom = nowMs - 14 * DAY_MS;
  const users: WorldUser[] = Array.from({ length: spec.users }, (_, u) => {
    const actor: Actor = { group: 'user', index: u };
    const favourites = favouritesOf();
    const heldOutCount = 2 + pickIndex(rand, 2);
    let heldOut: number[];
    let liked: number[];
    let noise: number[];
    if (spec.likeCounts) {
      // A heavy liker (more than 60 likes) has one more favourite topic.
      const count = likeCount(spec.likeCounts.user);
      if (count > 60 && favourites.length < spec.topics) favourites.push(weightedIndex(rand, attention.map((w, t) => (favourites.includes(t) ? 0 : w))));
      // One draw from the taste, then a random split of its on-topic likes: held-out likes are like the observed ones.
      const drawn = tasteDraw(favourites, count + heldOutCount);
      const onTopicDrawn = drawn.filter((i) => favourites.includes(videos[i]!.topic));
      heldOut = weightedSample(rand, onTopicDrawn, () => 1, heldOutCount);
      liked = drawn.filter((i) => !heldOut.includes(i));
      noise = liked.filter((i) => !favourites.includes(videos[i]!.topic));
    } else {
      const onTopicPool = favourites.flatMap((t) => byTopic[t]!);
      const observedCount = 7 + pickIndex(rand, 2);
      // One draw by quality, then a random split: held-out likes are like the observed ones.
      const drawn = weightedSample(rand, onTopicPool, quality, observedCount + heldOutCount);
      const shuffled = weightedSample(rand, drawn, () => 1, drawn.length);
      heldOut = shuffled.slice(0, heldOutCount);
      liked = shuffled.slice(heldOutCount);
      noise = weightedSample(
        rand,
        videos.map((_, i) => i).filter((i) => !favourites.includes(videos[i]!.topic)),
        () => 1,
        1 + pickIndex(rand, 2),
      );
      liked.push(...noise);
    }
    const onTopic = favourites.flatMap((t) => byTopic[t]!);
    const offTopic = videos.map((_, i) => i).filter((i) => !favourites.includes(videos[i]!.topic));
    const disliked = weightedSample(
      rand,
      offTopic.filter((i) => !noise.includes(i)),
      quality,
      1 + pickIndex(rand, 2),
    );
    // Views: every liked video, and some others (half in the favourite topics), never a held-out one.
    const candidates = videos.map((_, i) => i).filter((i) => !liked.includes(i) && !heldOut.includes(i) && !disliked.includes(i));
    const extraViews = weightedSample(rand, candidates, (i) => (favourites.includes(videos[i]!.topic) ? 1 : onTopic.length / Math.max(1, offTopic.length)), 4 + pickIndex(rand, 7));
    const viewed = [...liked, ...extraViews];
    // Follows: an author of a favourite topic (or two), sometimes one more at random.
    const topicalAuthors = authors.map((a, i) => ({ a, i })).filter(({ a }) => a.homeTopics.some((t) => favourites.includes(t))).map(({ i }) => i);
    const follows = weightedSample(rand, topicalAuthors, (i) => output[i]!, 1 + pickIndex(rand, 2));
    if (rand() < 0.2) {
      const other = pickIndex(rand, authors.length);
      if (!follows.includes(other)) follows.push(other);
    }
    for (const author of follows) events.push({ at: Math.round(activeFrom + rand() * DAY_MS), kind: 'follow', actor, author });
    // A viewed video is viewed before it is liked: one view each, or for long-tailed likers, views
    // reported 3 at a time (as a client does with view_list) just before the first of the 3 likes.
    const likes = liked.map((video) => ({ video, at: reactionTime(video, activeFrom + DAY_MS, nowMs - 3_600_000) }));
    if (spec.likeCounts) likes.sort((a, b) => a.at - b.at);
    const perView = spec.likeCounts ? 3 : 1;
    for (let i = 0; i < likes.length; i += perView) {
      const batch = likes.slice(i, i + perView);
      events.push({ at: batch[0]!.at - 30_000, kind: 'view', actor, videos: batch.map((l) => l.video) });
    }
    for (const { video, at } of likes) events.push({ at, kind: 'like', actor, video });
    for (const video of disliked) events.push({ at: reactionTime(video, activeFrom + DAY_MS, nowMs - 3_600_000), kind: 'dislike', actor, video });
    // Other views reported in batches, as a client does with view_list.
    for (let i = 0; i < extraViews.length; i += 3) {
      const batch = extraViews.slice(i, i + 3);
      const at = Math.max(...batch.map((v) => reactionTime(v, activeFrom + DAY_MS, nowMs - 3_600_000)));
      events.push({ at, kind: 'view', actor, videos: batch });
    }
    return { favourites, liked, heldOut, disliked, viewed, follows };
  });

  const order = { publish: 0, follow: 1, view: 2, like: 3, dislike: 4 };
  events.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind]);
  const freshTags = topicTags.map((tag, t) => (spec.tagging === 'genres' ? genreProfiles[t]! : [tag]));
  return { spec, topicTags, freshTags, dominantTag: GENERIC[0]!.tag, authors, videos, users, crowd, events, nowMs };
}

/**
 * The controlled case: `topics` x `perTopic` videos, every one tagged [topic, "expo"], published
 * over the last 10 days by `perTopic` authors, author j publishing the j-th video of every topic (so
 * the per-author cap of 2 never decides how many videos of one topic an answer can hold).
 */
export interface ControlledWorld {
  topicTags: string[];
  videos: WorldVideo[];
  authors: WorldAuthor[];
  nowMs: number;
}

export function controlledWorld(topics = 10, perTopic = 10): ControlledWorld {
  const rand = seededRandom(1010);
  const topicTags = TOPIC_TAGS.slice(0, topics) as string[];
  const videos: WorldVideo[] = [];
  for (let t = 0; t < topics; t++) {
    for (let j = 0; j < perTopic; j++) {
      videos.push({
        key: `c${t}_${j}`,
        topic: t,
        author: j,
        tags: [topicTags[t]!, 'expo'],
        quality: 1,
        createdMs: Math.round(WORLD_NOW_MS - between(rand, 0.1, 10) * DAY_MS),
        title: `${topicTags[t]} ${j}`,
        description: '',
        durationS: 60,
      });
    }
  }
  videos.sort((a, b) => a.createdMs - b.createdMs);
  return { topicTags, videos, authors: Array.from({ length: perTopic }, (_, j) => ({ key: `cauthor${j}`, homeTopics: [] })), nowMs: WORLD_NOW_MS };
}

/**
 * A world from statistics like real data's (MovieLens-like), with nothing planted that a tag shows:
 * - `topics` latent taste groups of unequal size (group g draws 1 / (g + 1)^0.6 of the attention);
 *   a video's latent profile is its main group (its `topic`) and now and then a second one (0.4);
 *   tags are broad genres (GENRES: 2 likely per group, shared across groups, several per video)
 *   plus the generic ones, so tags alone do not reveal tastes;
 * - a long-tailed appeal per video (log-normal, sigma `appealSigma`): a few videos draw most likes;
 * - people with a latent taste (a main group, 0-2 more at 0.3-0.7, a floor of 0.03 on every group;
 *   heavy likers broader) and a long-tailed like count (`activity`: cold people with 3-5 likes,
 *   heavy ones with 100+); each like drawn by appeal x taste-profile match;
 * - views (opened, not liked: `viewsPerLike` per like, drawn by the square root of that weight),
 *   dislikes (popular videos off the person's taste), follows of authors they like, all timestamped;
 * - every person is evaluated: their LAST like in time is held out (never performed), as in the
 *   outside check on MovieLens 100K (issue 37). No crowd: everyone is a person of the world.
 */
export function generateLatentWorld(spec: WorldSpec): World {
  if (spec.topics > TOPIC_TAGS.length) throw new Error(`at most ${TOPIC_TAGS.length} latent groups`);
  const rand = seededRandom(spec.seed);
  const nowMs = WORLD_NOW_MS;
  const groups = spec.topics;
  const topicTags = TOPIC_TAGS.slice(0, groups) as string[];
  const attention = topicTags.map((_, g) => 1 / (g + 1) ** 0.6);
  const genreProfiles = topicTags.map(() => weightedSample(rand, GENRES, () => 1, 2));
  const authors: WorldAuthor[] = Array.from({ length: spec.authors }, (_, a) => {
    const home = [a < groups ? a : weightedIndex(rand, attention)];
    if (rand() < 0.4) {
      const g = weightedIndex(rand, attention);
      if (!home.includes(g)) home.push(g);
    }
    return { key: `author${a}`, homeTopics: home };
  });
  const output = authors.map(() => Math.exp(0.8 * normal(rand)));
  const profiles: number[][] = [];
  const videos: WorldVideo[] = Array.from({ length: spec.videos }, (_, i) => {
    const author = weightedIndex(rand, output);
    const home = authors[author]!.homeTopics;
    const topic = rand() < 0.85 ? home[pickIndex(rand, home.length)]! : weightedIndex(rand, attention);
    const profile = new Array<number>(groups).fill(0);
    profile[topic] = 1;
    const second = rand() < 0.35 ? weightedIndex(rand, attention.map((w, g) => (g === topic ? 0 : w))) : -1;
    if (second >= 0) profile[second] = 0.4;
    profiles.push(profile);
    const tags = GENRES.filter((g) => rand() < (genreProfiles[topic]!.includes(g) ? 0.75 : second >= 0 && genreProfiles[second]!.includes(g) ? 0.4 : 0.1));
    if (tags.length === 0) tags.push(genreProfiles[topic]![0]!);
    for (const g of GENERIC) if (rand() < (g.share < 0 ? spec.dominantGenericShare : g.share)) tags.push(g.tag);
    return {
      key: `v${i}`,
      topic,
      author,
      tags,
      quality: Math.exp((spec.appealSigma ?? 1.2) * normal(rand)),
      createdMs: Math.round(nowMs - between(rand, 0.05, spec.days) * DAY_MS),
      title: `Expo report ${i}`,
      description: `Synthetic video ${i} of the evaluation world ${spec.name}.`,
      durationS: 30 + pickIndex(rand, 600),
    };
  });
  const all = videos.map((_, i) => i);
  const activity = spec.activity ?? { median: 20, sigma: 1, min: 3, max: 160 };
  const events: WorldEvent[] = videos.map((v, i) => ({ at: v.createdMs, kind: 'publish' as const, video: i }));
  const reactionTime = (video: number, from: number, to: number) => {
    const start = Math.max(videos[video]!.createdMs + 60_000, from);
    return Math.round(start + rand() * Math.max(60_000, to - start));
  };
  const users: WorldUser[] = Array.from({ length: spec.users }, (_, u) => {
    const actor: Actor = { group: 'user', index: u };
    const count = Math.min(activity.max, Math.max(activity.min, Math.round(Math.exp(Math.log(activity.median) + activity.sigma * normal(rand)))));
    const taste = new Array<number>(groups).fill(0.03);
    taste[weightedIndex(rand, attention)] = 1;
    const extra = (rand() < 0.6 ? 1 : 0) + (rand() < 0.3 ? 1 : 0) + (count > 60 ? 1 : 0);
    for (let e = 0; e < extra && taste.some((t) => t < 0.1); e++) taste[weightedIndex(rand, attention.map((w, g) => (taste[g]! > 0.1 ? 0 : w)))] = 0.3 + 0.4 * rand();
    const match = all.map((v) => profiles[v]!.reduce((s, p, g) => s + p * taste[g]!, 0));
    const weight = all.map((v) => videos[v]!.quality * match[v]!);
    const drawn = weightedSample(rand, all, (v) => weight[v]!, count);
    const from = nowMs - between(rand, 0.3, 1) * spec.days * DAY_MS;
    const to = nowMs - 3_600_000;
    const likes = drawn.map((video) => ({ video, at: reactionTime(video, from, to) })).sort((a, b) => a.at - b.at);
    const heldOut = [likes.at(-1)!.video];
    const performed = likes.slice(0, -1);
    const liked = performed.map((l) => l.video);
    const taken = new Set(drawn);
    const viewed = weightedSample(
      rand,
      all.filter((v) => !taken.has(v)),
      (v) => Math.sqrt(weight[v]!),
      Math.round(count * (spec.viewsPerLike ?? 0.6)),
    );
    for (const v of viewed) taken.add(v);
    const maxMatch = Math.max(...match);
    const disliked = weightedSample(
      rand,
      all.filter((v) => !taken.has(v)),
      (v) => videos[v]!.quality * (1 - match[v]! / maxMatch) ** 2,
      1 + Math.floor(count / 15),
    );
    // Follows: an author whose videos the person liked (most likely the one liked most), sometimes two.
    const likedAuthors = liked.map((v) => videos[v]!.author);
    const follows: number[] = [];
    for (const p of [0.8, 0.3]) {
      const left = authors.map((_, a) => (follows.includes(a) ? 0 : likedAuthors.filter((x) => x === a).length));
      if (rand() < p && left.some((n) => n > 0)) follows.push(weightedIndex(rand, left));
    }
    for (const author of follows) events.push({ at: Math.round(from + rand() * DAY_MS), kind: 'follow', actor, author });
    for (const { video, at } of performed) events.push({ at, kind: 'like', actor, video });
    // Views reported 3 at a time, as a client does with view_list.
    const views = viewed.map((video) => ({ video, at: reactionTime(video, from, to) })).sort((a, b) => a.at - b.at);
    for (let i = 0; i < views.length; i += 3) {
      const batch = views.slice(i, i + 3);
      events.push({ at: batch.at(-1)!.at, kind: 'view', actor, videos: batch.map((b) => b.video) });
    }
    for (const video of disliked) events.push({ at: reactionTime(video, from, to), kind: 'dislike', actor, video });
    const favourites = taste.map((t, g) => ({ t, g })).filter(({ t }) => t >= 0.3).map(({ g }) => g);
    return { favourites, liked, heldOut, heldOutAt: [likes.at(-1)!.at], disliked, viewed, follows };
  });
  const order = { publish: 0, follow: 1, view: 2, like: 3, dislike: 4 };
  events.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind]);
  return { spec, topicTags, freshTags: genreProfiles, dominantTag: GENERIC[0]!.tag, authors, videos, users, crowd: [], events, nowMs };
}

/** A kind of world and its two disjoint seed sets: TUNE seeds (`--tune`) and REPORT seeds (the default run). */
export interface WorldKind {
  kind: string;
  spec: Omit<WorldSpec, 'name' | 'seed' | 'kind'>;
  tune: number[];
  report: number[];
}

const LONG_TAILED_LIKES: WorldSpec['likeCounts'] = {
  // Users 10-120 likes (mean about 40), background accounts 4-60 (mean about 13).
  user: { median: 32, sigma: 0.7, min: 10, max: 120 },
  crowd: { median: 10, sigma: 0.7, min: 4, max: 60 },
};
/** Thin data: 3-12 likes performed (2-3 more held out) by the evaluated people, 3-15 by the others. */
const THIN_LIKES: WorldSpec['likeCounts'] = {
  user: { median: 6, sigma: 0.5, min: 3, max: 12 },
  crowd: { median: 6, sigma: 0.6, min: 3, max: 15 },
};
const PLANTED: WorldKind['spec'] = { topics: 12, videos: 300, authors: 15, users: 60, crowd: 120, dominantGenericShare: 0.73, popularity: 'uniform', days: 60 };

/**
 * The world kinds of `npm run eval:feed`. Planted-topic kinds (the capped oracle exists): three of
 * the issue's shape and size ("uniform", "skewed" with one topic drawing 6 times the attention,
 * "generic-heavy" with "expo" on 90 % of videos) and three that each take away one thing those give:
 * "many-authors" (40 one-topic authors: the author cap no longer binds the oracle), "co-liking" (no
 * topic in the tags; long-tailed like counts from latent tastes) and "popularity-skew" (Zipf-like
 * quality within each topic). "realistic": latent tastes (generateLatentWorld). "thin" and
 * "thin-small": the launch, 150 and 50 people with 3-15 likes each, planted topics with tags.
 *
 * The TUNE seeds are the ones the feed was developed on (the planted kinds' are the worlds of the
 * first three generations); the REPORT seeds were drawn once for reporting and must never be used
 * for tuning: a kind's two sets are disjoint (test/unit/feed-eval.test.ts checks it).
 */
export const WORLD_KINDS: WorldKind[] = [
  { kind: 'uniform', spec: PLANTED, tune: [11], report: [7301] },
  { kind: 'skewed', spec: { ...PLANTED, popularity: 'skewed', skew: 6 }, tune: [22], report: [5113] },
  { kind: 'generic-heavy', spec: { ...PLANTED, dominantGenericShare: 0.9, days: 30 }, tune: [33], report: [6247] },
  { kind: 'many-authors', spec: { ...PLANTED, authors: 40, authorHomeTopics: 1 }, tune: [55], report: [8419] },
  { kind: 'co-liking', spec: { ...PLANTED, videos: 480, authors: 30, users: 50, tagging: 'genres', likeCounts: LONG_TAILED_LIKES }, tune: [66], report: [9034] },
  { kind: 'popularity-skew', spec: { ...PLANTED, quality: 'zipf', zipfExponent: 2 }, tune: [77], report: [3371] },
  {
    kind: 'realistic',
    spec: { generator: 'latent', topics: 10, videos: 400, authors: 40, users: 120, crowd: 0, dominantGenericShare: 0.6, popularity: 'uniform', days: 90, activity: { median: 20, sigma: 1, min: 3, max: 160 }, appealSigma: 1.6, viewsPerLike: 0.6 },
    tune: [81, 82],
    report: [4409, 4421],
  },
  { kind: 'thin', spec: { ...PLANTED, users: 80, crowd: 70, thin: true, likeCounts: THIN_LIKES }, tune: [91], report: [2953] },
  { kind: 'thin-small', spec: { ...PLANTED, users: 40, crowd: 10, thin: true, likeCounts: THIN_LIKES }, tune: [92], report: [1787] },
];

/** The worlds of one seed set: every kind (or the named ones) at each of its seeds, or at the given ones. */
export function worldsOf(set: 'tune' | 'report' | number[], kinds: readonly string[] = []): WorldSpec[] {
  const chosen = kinds.length ? WORLD_KINDS.filter((k) => kinds.includes(k.kind)) : WORLD_KINDS;
  const unknown = kinds.filter((k) => !WORLD_KINDS.some((x) => x.kind === k));
  if (unknown.length) throw new Error(`unknown world kind ${unknown.join(', ')} (kinds: ${WORLD_KINDS.map((k) => k.kind).join(', ')})`);
  return chosen.flatMap((k) => (Array.isArray(set) ? set : k[set]).map((seed) => ({ ...k.spec, kind: k.kind, name: `${k.kind}-${seed}`, seed })));
}

/** The tuning worlds (for tests and `--tune`). */
export const WORLDS: WorldSpec[] = worldsOf('tune');

/** `--quick`: a small world of each generator and of thin data, to try the harness in a few minutes. */
export const QUICK_WORLDS: WorldSpec[] = [
  { name: 'quick', kind: 'quick', seed: 44, topics: 8, videos: 120, authors: 8, users: 20, crowd: 40, dominantGenericShare: 0.73, popularity: 'uniform', days: 30 },
  {
    name: 'quick-realistic',
    kind: 'quick-realistic',
    seed: 46,
    generator: 'latent',
    topics: 6,
    videos: 150,
    authors: 12,
    users: 50,
    crowd: 0,
    dominantGenericShare: 0.6,
    popularity: 'uniform',
    days: 60,
    activity: { median: 12, sigma: 0.9, min: 3, max: 60 },
    appealSigma: 1.6,
    viewsPerLike: 0.6,
  },
  { name: 'quick-thin', kind: 'quick-thin', seed: 47, topics: 8, videos: 120, authors: 8, users: 30, crowd: 20, dominantGenericShare: 0.73, popularity: 'uniform', days: 30, thin: true, likeCounts: THIN_LIKES },
];

/** The value at quantile `q` (0-1) of `xs`, nearest rank below. */
export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(q * (sorted.length - 1))]! : Number.NaN;
}

/**
 * What a world looks like in numbers, as one would describe real data: likes per person (the
 * evaluated ones' held-out likes included) at the 0/10/50/90/100 % quantiles, the share of likes on
 * the top 10 % of videos, views and dislikes per person.
 */
export function worldStatistics(world: World) {
  const people = world.users.length + world.crowd.length;
  const perPerson = [...world.users.map((u) => u.liked.length + u.heldOut.length), ...world.crowd.map((c) => c.liked.length)];
  const perVideo = new Array<number>(world.videos.length).fill(0);
  let views = 0;
  let dislikes = 0;
  for (const e of world.events) {
    if (e.kind === 'like') perVideo[e.video]!++;
    else if (e.kind === 'view') views += e.videos.length;
    else if (e.kind === 'dislike') dislikes++;
  }
  const byLikes = perVideo.sort((a, b) => b - a);
  const total = byLikes.reduce((s, n) => s + n, 0);
  const top = byLikes.slice(0, Math.ceil(byLikes.length / 10)).reduce((s, n) => s + n, 0);
  return {
    likesPerPerson: { min: quantile(perPerson, 0), p10: quantile(perPerson, 0.1), median: quantile(perPerson, 0.5), p90: quantile(perPerson, 0.9), max: quantile(perPerson, 1) },
    topTenthLikeShare: total ? top / total : 0,
    viewsPerPerson: views / Math.max(1, people),
    dislikesPerPerson: dislikes / Math.max(1, people),
  };
}

import { seededRandom } from '../../lib/seeded-random.js';

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
  disliked: number[];
  viewed: number[];
  follows: number[];
}

export interface World {
  spec: WorldSpec;
  topicTags: string[];
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
    const extra = rand() < 0.5 ? 1 : rand() < 0.5 ? 2 : 0;
    while (home.length < 1 + extra) {
      const t = pickIndex(rand, spec.topics);
      if (!home.includes(t)) home.push(t);
    }
    return { key: `author${a}`, homeTopics: home };
  });
  const output = authors.map(() => Math.exp(0.6 * normal(rand)));

  const videos: WorldVideo[] = Array.from({ length: spec.videos }, (_, i) => {
    const author = weightedIndex(rand, output);
    const home = authors[author]!.homeTopics;
    // Mostly the author's home topics (the first most), rarely anything else.
    const topic = rand() < 0.9 ? home[weightedIndex(rand, home.map((_, k) => (k === 0 ? 2 : 1)))]! : pickIndex(rand, spec.topics);
    const tags = [topicTags[topic]!];
    if (rand() < 0.5) tags.push(`${topicTags[topic]}-${SUBTOPICS[pickIndex(rand, SUBTOPICS.length)]}`);
    // A video about two topics now and then (its planted topic stays the first).
    if (rand() < 0.1) {
      const other = pickIndex(rand, spec.topics);
      if (other !== topic) tags.push(topicTags[other]!);
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
      title: `${topicTags[topic]} report ${i}`,
      description: `Synthetic video ${i} of the evaluation world ${spec.name}.`,
      durationS: 30 + pickIndex(rand, 600),
    };
  });
  const byTopic = topicTags.map((_, t) => videos.map((v, i) => ({ v, i })).filter(({ v }) => v.topic === t).map(({ i }) => i));
  const quality = (i: number) => videos[i]!.quality;
  const events: WorldEvent[] = videos.map((v, i) => ({ at: v.createdMs, kind: 'publish' as const, video: i }));
  /** A reaction some time after the video appeared, within [from, to). */
  const reactionTime = (video: number, from: number, to: number) => {
    const start = Math.max(videos[video]!.createdMs + 60_000, from);
    return Math.round(start + rand() * Math.max(60_000, to - start));
  };

  // The crowd: preferences like the users', likes by quality in their topics, a little noise.
  const crowd = Array.from({ length: spec.crowd }, (_, c) => {
    const favourites = favouritesOf();
    const pool = favourites.flatMap((t) => byTopic[t]!);
    const liked = weightedSample(rand, pool, quality, 4 + pickIndex(rand, 7));
    const others = videos.map((_, i) => i).filter((i) => !favourites.includes(videos[i]!.topic));
    liked.push(...weightedSample(rand, others, quality, pickIndex(rand, 3)));
    for (const video of liked) events.push({ at: reactionTime(video, nowMs - spec.days * DAY_MS, nowMs - 3_600_000), kind: 'like', actor: { group: 'crowd', index: c }, video });
    return { favourites, liked };
  });

  // Evaluated users: active over the last 14 days.
  const activeFrom = nowMs - 14 * DAY_MS;
  const users: WorldUser[] = Array.from({ length: spec.users }, (_, u) => {
    const actor: Actor = { group: 'user', index: u };
    const favourites = favouritesOf();
    const onTopic = favourites.flatMap((t) => byTopic[t]!);
    const offTopic = videos.map((_, i) => i).filter((i) => !favourites.includes(videos[i]!.topic));
    const heldOutCount = 2 + pickIndex(rand, 2);
    const observedCount = 7 + pickIndex(rand, 2);
    // One draw by quality, then a random split: held-out likes are like the observed ones.
    const drawn = weightedSample(rand, onTopic, quality, observedCount + heldOutCount);
    const shuffled = weightedSample(rand, drawn, () => 1, drawn.length);
    const heldOut = shuffled.slice(0, heldOutCount);
    const liked = shuffled.slice(heldOutCount);
    const noise = weightedSample(rand, offTopic, () => 1, 1 + pickIndex(rand, 2));
    liked.push(...noise);
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
    // A viewed video is viewed before it is liked.
    for (const video of liked) {
      const at = reactionTime(video, activeFrom + DAY_MS, nowMs - 3_600_000);
      events.push({ at: at - 30_000, kind: 'view', actor, videos: [video] });
      events.push({ at, kind: 'like', actor, video });
    }
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
  return { spec, topicTags, dominantTag: GENERIC[0]!.tag, authors, videos, users, crowd, events, nowMs };
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

/** The worlds of `npm run eval:feed`: three of the shape and size, one with skewed attention. */
export const WORLDS: WorldSpec[] = [
  { name: 'uniform', seed: 11, topics: 12, videos: 300, authors: 15, users: 60, crowd: 120, dominantGenericShare: 0.73, popularity: 'uniform', days: 60 },
  { name: 'skewed', seed: 22, topics: 12, videos: 300, authors: 15, users: 60, crowd: 120, dominantGenericShare: 0.73, popularity: 'skewed', skew: 6, days: 60 },
  { name: 'generic-heavy', seed: 33, topics: 12, videos: 300, authors: 15, users: 60, crowd: 120, dominantGenericShare: 0.9, popularity: 'uniform', days: 30 },
];

export const QUICK_WORLDS: WorldSpec[] = [{ name: 'quick', seed: 44, topics: 8, videos: 120, authors: 8, users: 20, crowd: 40, dominantGenericShare: 0.73, popularity: 'uniform', days: 30 }];

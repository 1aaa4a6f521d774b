import type { Action } from '../lib/features/recommend/neighbours.js';
import { seededRandom } from '../lib/platform/seeded-random.js';

/**
 * A seeded world of interactions for the training benchmark (bench/training-child.ts), shaped like
 * real data's: videos' popularity long-tailed (Zipf, exponent 0.9: the top tenth of the catalog draws
 * about 60 % of the interactions), people's activity long-tailed (log-normal, sigma 1: most do a few
 * things, a few do hundreds), each person with a latent taste (one of 20 groups of videos: 70 % of their
 * actions in it, popular videos first), a third of the actions likes and the rest views (opened, not
 * liked; each person's first action a like: the refresh reads the views of people who liked
something), and 30 % of the people with 1-3 dislikes. Actions are the refresh's own objects
 * (lib/features/recommend/neighbours.ts `Action`), with the ids' real lengths (a vid of 10 characters,
 * an openid of 22).
 */
export interface TrainingWorldSpec {
  interactions: number;
  videos: number;
  people: number;
  seed: number;
}

export interface TrainingWorld {
  actions: Action[];
  disliked: Map<string, Set<string>>;
  vids: string[];
  /** Per video, its likes (the entries of its likers' partition in gsi2). */
  likesOf: Map<string, number>;
  /** Per person, what they opened (liked or not: every liked video was opened first): the vids their view history carries. */
  openedBy: Map<string, number>;
  likes: number;
  views: number;
  /** `count` more actions drawn from the same tastes and activity, dated after the world's (an hour's worth of new actions). */
  more: (count: number) => Action[];
}

const GROUPS = 20;
const IN_GROUP = 0.7;
const LIKE_SHARE = 1 / 3;
const ZIPF = 0.9;

const base62 = (i: number, length: number) => {
  const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let s = '';
  for (let n = i; s.length < length; n = Math.floor(n / 62)) s = digits[n % 62]! + s;
  return s;
};

/** A sampler of indexes by weight (cumulative sums, binary search). */
function sampler(weights: number[], random: () => number): () => number {
  const cumulative = new Float64Array(weights.length);
  let total = 0;
  weights.forEach((w, i) => (cumulative[i] = total += w));
  return () => {
    const x = random() * total;
    let lo = 0;
    let hi = weights.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** A standard normal draw (Box-Muller). */
const normal = (random: () => number) => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

export function trainingWorld({ interactions, videos, people, seed }: TrainingWorldSpec): TrainingWorld {
  const random = seededRandom(seed);
  const vids = Array.from({ length: videos }, (_, i) => `v${base62(i, 9)}`);
  const openids = Array.from({ length: people }, (_, i) => `u_${base62(i, 20)}`);
  // Popularity rank is a shuffle of the catalog, so every taste group has popular and obscure videos.
  const rankOf = vids.map((_, i) => i);
  for (let i = rankOf.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rankOf[i], rankOf[j]] = [rankOf[j]!, rankOf[i]!];
  }
  const weight = (i: number) => 1 / (rankOf[i]! + 1) ** ZIPF;
  const anyVideo = sampler(vids.map((_, i) => weight(i)), random);
  const groupMembers = Array.from({ length: GROUPS }, (_, g) => vids.map((_, i) => i).filter((i) => i % GROUPS === g));
  const inGroup = groupMembers.map((members) => {
    const pick = sampler(members.map(weight), random);
    return () => members[pick()]!;
  });

  // Activity: log-normal, scaled to the interactions asked for, at least 2 and at most a third of the catalog.
  const raw = openids.map(() => Math.exp(normal(random)));
  const scale = interactions / raw.reduce((s, r) => s + r, 0);
  const cap = Math.max(2, Math.floor(videos / 3));
  const counts = raw.map((r) => Math.min(cap, Math.max(2, Math.round(r * scale))));
  // Bring the total to exactly `interactions`: the rounding and the bounds moved it a little.
  let excess = counts.reduce((s, c) => s + c, 0) - interactions;
  for (let i = 0; excess !== 0 && i < counts.length * 4; i++) {
    const p = i % counts.length;
    if (excess > 0 && counts[p]! > 2) {
      counts[p]!--;
      excess--;
    } else if (excess < 0 && counts[p]! < cap) {
      counts[p]!++;
      excess++;
    }
  }

  const actions: Action[] = [];
  const disliked = new Map<string, Set<string>>();
  const likesOf = new Map<string, number>();
  const openedBy = new Map<string, number>();
  const start = Date.parse('2026-10-01T00:00:00Z');
  const month = 30 * 86_400_000;
  let likes = 0;
  const groups = openids.map(() => inGroup[Math.floor(random() * GROUPS)]!);
  openids.forEach((openid, p) => {
    const group = groups[p]!;
    const mine = new Set<number>();
    for (let tries = 0; mine.size < counts[p]! && tries < counts[p]! * 20; tries++) mine.add(random() < IN_GROUP ? group() : anyVideo());
    let first = true;
    for (const i of mine) {
      const kind = first || random() < LIKE_SHARE ? 'like' : 'view';
      first = false;
      const vid = vids[i]!;
      actions.push({ openid, vid, at: new Date(start + Math.floor(random() * month)).toISOString(), kind });
      if (kind === 'like') {
        likes++;
        likesOf.set(vid, (likesOf.get(vid) ?? 0) + 1);
      }
    }
    openedBy.set(openid, mine.size);
    if (random() < 0.3) {
      const no = new Set<string>();
      for (let d = 1 + Math.floor(random() * 3); d > 0; d--) no.add(vids[anyVideo()]!);
      disliked.set(openid, no);
    }
  });
  const anyone = sampler(counts, random);
  const more = (count: number): Action[] =>
    Array.from({ length: count }, (_, k) => {
      const p = anyone();
      return {
        openid: openids[p]!,
        vid: vids[random() < IN_GROUP ? groups[p]!() : anyVideo()]!,
        at: new Date(start + month + k * 1000).toISOString(),
        kind: random() < LIKE_SHARE ? ('like' as const) : ('view' as const),
      };
    });
  return { actions, disliked, vids, likesOf, openedBy, likes, views: actions.length - likes, more };
}

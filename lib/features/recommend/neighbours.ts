/**
 * The feed's learned collaborative signal (docs/feed.md, "The learned model: item neighbours"): for
 * every video, the videos most often liked by the same people, by cosine similarity over the whole
 * like graph. Pure: lib/features/recommend/model-refresh.ts reads the likes and writes the lists; the unit
 * tests drive this directly.
 *
 *   sim(i, j) = sum over people who liked both of w(u)  /  sqrt(n(i) x n(j))  x  c / (c + SHRINK)
 *
 * n(i) is the weighted number of people who liked i and c the number who liked both; w(u) =
 * 1 / log2(2 + likes of u) lets a person who likes everything say less about what goes together
 * than one who likes little (the inverse user frequency of collaborative filtering); the last
 * factor shrinks a similarity resting on one or two shared likers towards 0.
 */
export const NEIGHBOURS = {
  /** Neighbours kept per video (a list stays under 4 KB: one read unit). */
  perVideo: 30,
  /** A person's latest likes that pair with each other (bounds the work: pairs grow with its square). */
  likesPerPerson: 300,
  shrink: 2,
  /** Neighbours below this similarity are left out. */
  minSimilarity: 0.005,
};

export interface Like {
  openid: string;
  vid: string;
  /** When (ISO): a person's latest likes pair when there are too many. */
  at: string;
}

export interface Neighbour {
  vid: string;
  sim: number;
}

const personWeight = (likes: number) => 1 / Math.log2(2 + likes);

/**
 * Top `perVideo` neighbours of every liked video, strongest first (ties by vid, so a model built
 * twice from the same likes is the same). A video liked by nobody, or only by people who liked
 * nothing else, has none.
 */
export function computeNeighbours(likes: Iterable<Like>, options: Partial<typeof NEIGHBOURS> = {}): Map<string, Neighbour[]> {
  const o = { ...NEIGHBOURS, ...options };
  const byPerson = new Map<string, Like[]>();
  for (const like of likes) {
    const list = byPerson.get(like.openid);
    if (list) list.push(like);
    else byPerson.set(like.openid, [like]);
  }
  // Each person's latest likes, de-duplicated; the item's weighted liker count.
  const people: { vids: string[]; w: number }[] = [];
  const norm = new Map<string, number>();
  const likers = new Map<string, number[]>();
  for (const list of byPerson.values()) {
    const vids = [...new Set(list.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).map((l) => l.vid))].slice(0, o.likesPerPerson);
    const w = personWeight(vids.length);
    const index = people.push({ vids, w }) - 1;
    for (const vid of vids) {
      norm.set(vid, (norm.get(vid) ?? 0) + w * w);
      const l = likers.get(vid);
      if (l) l.push(index);
      else likers.set(vid, [index]);
    }
  }
  const result = new Map<string, Neighbour[]>();
  // Item by item: co-like sums with every other item of its likers, then the top of them.
  for (const [vid, who] of likers) {
    const weighted = new Map<string, number>();
    const count = new Map<string, number>();
    for (const p of who) {
      const { vids, w } = people[p]!;
      for (const other of vids) {
        if (other === vid) continue;
        weighted.set(other, (weighted.get(other) ?? 0) + w * w);
        count.set(other, (count.get(other) ?? 0) + 1);
      }
    }
    const own = norm.get(vid)!;
    const scored: Neighbour[] = [];
    for (const [other, sum] of weighted) {
      const c = count.get(other)!;
      const sim = (sum / Math.sqrt(own * norm.get(other)!)) * (c / (c + o.shrink));
      if (sim >= o.minSimilarity) scored.push({ vid: other, sim });
    }
    scored.sort((a, b) => b.sim - a.sim || (a.vid < b.vid ? -1 : 1));
    if (scored.length > 0) result.set(vid, scored.slice(0, o.perVideo));
  }
  return result;
}

/**
 * How strongly a candidate goes with what a person liked: the sum of its similarities to their
 * likes, over the neighbour lists of those likes (lists the model keeps per video).
 */
export function neighbourScores(lists: Iterable<Neighbour[]>): Map<string, number> {
  const scores = new Map<string, number>();
  for (const list of lists) for (const n of list) scores.set(n.vid, (scores.get(n.vid) ?? 0) + n.sim);
  return scores;
}

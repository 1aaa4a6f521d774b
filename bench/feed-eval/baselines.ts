/**
 * Baselines computed locally from a world's training interactions (the likes actually performed),
 * pure so that unit tests can check them by hand (docs/feed.md, "Offline evaluation"): the most
 * popular unseen videos, item-kNN over co-likes, and the page rule every capped system shares.
 */

/** The first `k` of `ranked`, at most `cap` per author; then, if places are left, the rest in order whatever the author. */
export function pickCapped(ranked: readonly number[], authorOf: (video: number) => number, cap: number, k = 10): number[] {
  const perAuthor = new Map<number, number>();
  const out: number[] = [];
  for (const pass of [cap, Infinity]) {
    for (const i of ranked) {
      if (out.length >= k) break;
      const a = authorOf(i);
      if (out.includes(i) || (perAuthor.get(a) ?? 0) >= pass) continue;
      out.push(i);
      perAuthor.set(a, (perAuthor.get(a) ?? 0) + 1);
    }
  }
  return out;
}

/**
 * Item-to-item cosine over co-likes: cos(i, c) = |likers(i) and likers(c)| / sqrt(|likers(i)| |likers(c)|),
 * from every actor's liked videos.
 */
export class ItemKnn {
  private readonly likers: Map<number, Set<number>> = new Map();

  constructor(likesByActor: readonly (readonly number[])[]) {
    likesByActor.forEach((videos, actor) => {
      for (const v of videos) {
        const set = this.likers.get(v) ?? new Set<number>();
        set.add(actor);
        this.likers.set(v, set);
      }
    });
  }

  cosine(i: number, c: number): number {
    const a = this.likers.get(i);
    const b = this.likers.get(c);
    if (!a || !b) return 0;
    const [small, large] = a.size <= b.size ? [a, b] : [b, a];
    let both = 0;
    for (const x of small) if (large.has(x)) both++;
    return both / Math.sqrt(a.size * b.size);
  }

  /** score(c) = sum over the user's liked videos i of cos(i, c), for every candidate. */
  scores(liked: readonly number[], candidates: readonly number[]): Map<number, number> {
    return new Map(candidates.map((c) => [c, liked.reduce((s, i) => s + this.cosine(i, c), 0)]));
  }
}

/**
 * A ranked page over `eligible` (what the user has not liked, disliked or viewed): by `score`
 * descending, ties (and unscored videos) by `popularity` descending, then by index; at most `cap` per
 * author, as the capped oracle.
 */
export function rankedPage(eligible: readonly number[], score: (video: number) => number, popularity: (video: number) => number, authorOf: (video: number) => number, cap: number, k = 10): number[] {
  const ranked = [...eligible].sort((a, b) => score(b) - score(a) || popularity(b) - popularity(a) || a - b);
  return pickCapped(ranked, authorOf, cap, k);
}

/**
 * Trending with time decay, kept exact under concurrency with plain `ADD`s.
 *
 * An event at time t (a like, a video's creation) adds `weight * unit(t)` to the video's `trend`,
 * where unit(t) = 2^((t - T0) / half-life) grows with time. Then, for any "now",
 * trend / unit(now) = sum of weight * 2^-(age / half-life): the decayed like count. Because every
 * score is divided by the same unit(now), the ORDER of stored trends is the order of decayed
 * scores at every moment: an index sorted by `trend` (gsi3) is a live trending list that never
 * needs re-scoring. A like removed by a dislike subtracts exactly what it added.
 *
 * DynamoDB numbers span 1e-130..1e125 and the SDK refuses numbers above 2^53, so unit() starts at
 * 2^-400 on 2026-01-01 and reaches 2^53 in early 2032 (453 half-lives later); before then a
 * one-off rebase (multiply every trend by 2^-k and add k half-lives to T0) extends it.
 */
export const TREND_HALF_LIFE_DAYS = 5;
const DAY_MS = 86_400_000;
const T0_MS = Date.UTC(2026, 0, 1);
const T0_EXPONENT = -400;

/**
 * How often a video's trend moves its index key at most (docs/data-model.md, "Trend keys"): the
 * exact trend (`trend` on the video item, in no index) takes every like; the ranked copy `gsi3sk`
 * (gsi3 `TRENDING#k` and `TAG#<tag>`) is copied from it at most once per interval, so it trails the
 * exact trend by at most this (plus the stream's lag) while likes come in.
 */
export const TREND_KEY_INTERVAL_MS = 5_000;

/** The exact trend of a video item: `trend`, or on items from before it existed, the key. */
export const exactTrend = (video: { trend?: number; gsi3sk: number }): number => video.trend ?? video.gsi3sk;

/** A fresh video counts as this many likes at its creation: new videos get a chance to be seen. */
export const CREATION_WEIGHT = 3;

/** Events older than this weigh the same (2^-420 is still above DynamoDB's smallest number, 1e-130). */
const MIN_EXPONENT = -420;

/** 2^((t - T0) / halfLife), starting at 2^-400 on T0: the growth unit of any decayed sum. */
export function growthUnit(atMs: number, halfLifeDays: number): number {
  return 2 ** Math.max(MIN_EXPONENT, T0_EXPONENT + (atMs - T0_MS) / (halfLifeDays * DAY_MS));
}

export function trendUnit(atMs: number): number {
  return growthUnit(atMs, TREND_HALF_LIFE_DAYS);
}

/** The decayed like count a stored trend stands for at `nowMs`. */
export function hotness(trend: number, nowMs: number): number {
  return trend > 0 ? trend / trendUnit(nowMs) : 0;
}

/** The trend of a video created at `createdAtMs` that already has `likes` likes (bulk import). */
export function initialTrend(createdAtMs: number, likes = 0): number {
  return (CREATION_WEIGHT + likes) * trendUnit(createdAtMs);
}

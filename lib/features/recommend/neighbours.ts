import { easeWeights, gramMatrix, topOfRow, type SparseRow } from './ease.js';

/**
 * The feed's learned model (docs/feed.md, "The learned model"): item-to-item weights trained in batch
 * on everything people did, by EASE (lib/features/recommend/ease.ts) over a matrix X with a row per
 * person and a column per video:
 *
 *   x = 1 for a like, VIEW weight for a video reported viewed and not liked, nothing for a dislike
 *
 * (a disliked video is also never served: lib/features/recommend/scoring.ts). Each video's list is the
 * row of B cut to its `perVideo` largest weights; rec scores a candidate by the sum of the weights
 * the caller's latest likes and views give it (neighbourScores), which is EASE's own prediction
 * restricted to those actions and lists. Pure: lib/features/recommend/model-refresh.ts reads the
 * actions and writes the lists; the unit tests drive this directly.
 */
export const ITEM_MODEL = {
  /** Entries kept per video (a list stays under 8 KB). */
  perVideo: 50,
  /** What a view (opened, not liked) weighs against a like, in training and at request time. */
  viewWeight: 0.25,
  /**
   * The ridge penalty is a share of the mean diagonal of X'X (a video's mean interaction mass), at
   * least `minLambda`; the share is chosen among these at every refresh on a validation split of the
   * training data (chooseLambdaShare), over the `validationVideos` videos with the most interactions,
   * when at least `minValidation` people can be judged.
   */
  lambdaShares: [3, 10, 25, 60],
  validationVideos: 1500,
  minValidation: 20,
  minLambda: 2,
  /** A person's latest actions that enter X (bounds one heavy account's weight and the work). */
  actionsPerPerson: 300,
  /**
   * The videos with the most interactions that enter the model: training is dense, n^3 / 2 for n
   * videos (docs/feed.md, "Training cost"); past this, training moves off the function.
   */
  maxVideos: 6000,
  /** Weights below this are left out of a list. */
  minWeight: 1e-4,
};

export interface Action {
  openid: string;
  vid: string;
  /** When (ISO): a person's latest actions enter when there are too many. */
  at: string;
  kind: 'like' | 'view';
}

export interface Neighbour {
  vid: string;
  sim: number;
}

export interface ItemModel {
  lists: Map<string, Neighbour[]>;
  /** Videos in the model (columns of X), people (rows), entries of X. */
  videos: number;
  people: number;
  entries: number;
  lambda: number;
  /** The share of the mean diagonal the validation chose, and what it saw: people judged, hits per share of the grid. */
  lambdaShare: number;
  validation: { judged: number; hits: number[] };
}

const byVid = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A person's row as the model sees it: vid -> value, and their latest like (the validation's held-out one). */
interface PersonRow {
  values: Map<string, number>;
  latestLike?: string;
}

/** The columns (the `limit` vids with the most interaction mass), their index, and the rows over them. */
function matrixOver(people: PersonRow[], mass: ReadonlyMap<string, number>, limit: number, leaveOut?: (p: PersonRow) => string | undefined) {
  const vids = [...mass.keys()].sort((a, b) => mass.get(b)! - mass.get(a)! || byVid(a, b)).slice(0, limit);
  const index = new Map(vids.map((vid, i) => [vid, i]));
  const rows: SparseRow[] = [];
  let entries = 0;
  let diagonal = 0;
  for (const p of people) {
    const out = leaveOut?.(p);
    const items: number[] = [];
    const xs: number[] = [];
    for (const [vid, x] of p.values) {
      const i = index.get(vid);
      if (i === undefined || vid === out) continue;
      items.push(i);
      xs.push(x);
      diagonal += x * x;
    }
    entries += items.length;
    rows.push({ items, values: xs });
  }
  return { vids, index, rows, entries, meanDiagonal: vids.length ? diagonal / vids.length : 0 };
}

/** Each row of B cut to its `k` largest weights, as indexes. */
function cutRows(b: Float64Array, n: number, k: number, min: number) {
  return Array.from({ length: n }, (_, i) => topOfRow(b, n, i, k, min));
}

/**
 * The ridge penalty, chosen on the training data itself (docs/feed.md, "The learned model"): each
 * person's latest like is held out, the model is trained without it over the `validationVideos`
 * videos with the most interactions for every share of `lambdaShares`, served as it is served (rows
 * cut to `perVideo`, summed over the person's other actions), and the share whose top 10 (of what
 * the person did not act on) holds the held-out like most often wins; ties go to the larger share.
 * Too few people to judge (under `minValidation`): the middle of the grid.
 */
export function chooseLambdaShare(people: PersonRow[], mass: ReadonlyMap<string, number>, o: typeof ITEM_MODEL): { share: number; hits: number[]; judged: number } {
  const grid = o.lambdaShares;
  const m = matrixOver(people, mass, o.validationVideos, (p) => p.latestLike);
  const judged = people.flatMap((p, row) => (p.latestLike && m.index.has(p.latestLike) && m.rows[row]!.items.length > 0 ? [{ row, target: m.index.get(p.latestLike)! }] : []));
  const middle = grid[Math.floor((grid.length - 1) / 2)]!;
  if (judged.length < o.minValidation || m.vids.length < 2) return { share: middle, hits: [], judged: judged.length };
  const n = m.vids.length;
  const hits = grid.map((share) => {
    const lists = cutRows(easeWeights(gramMatrix(m.rows, n), n, Math.max(o.minLambda, share * m.meanDiagonal)), n, o.perVideo, o.minWeight);
    let hit = 0;
    for (const { row, target } of judged) {
      const { items, values } = m.rows[row]!;
      const own = new Set(items);
      const scores = new Map<number, number>();
      items.forEach((i, k) => {
        for (const e of lists[i]!) if (!own.has(e.index)) scores.set(e.index, (scores.get(e.index) ?? 0) + values[k]! * e.weight);
      });
      const top = [...scores.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 10);
      if (top.some(([i]) => i === target)) hit++;
    }
    return hit;
  });
  let best = 0;
  hits.forEach((h, k) => {
    if (h >= hits[best]!) best = k;
  });
  return { share: grid[best]!, hits, judged: judged.length };
}

/** ITEM_MODEL's settings to override, and `lambdaShare` to skip the validation and use that share. */
export type TrainOptions = Partial<typeof ITEM_MODEL> & { lambdaShare?: number };

/**
 * Trains the model on the given actions; `disliked` holds each person's disliked vids (their views
 * and likes of those do not count). Deterministic: the same actions give the same lists.
 */
export function trainItemModel(actions: Iterable<Action>, disliked: ReadonlyMap<string, ReadonlySet<string>> = new Map(), options: TrainOptions = {}): ItemModel {
  const o = { ...ITEM_MODEL, ...options };
  const byPerson = new Map<string, Action[]>();
  for (const a of actions) {
    const list = byPerson.get(a.openid);
    if (list) list.push(a);
    else byPerson.set(a.openid, [a]);
  }
  // Each person's latest actions: a video's value is its strongest (a like beats a view).
  const people: PersonRow[] = [];
  const mass = new Map<string, number>();
  for (const [openid, list] of [...byPerson.entries()].sort((a, b) => byVid(a[0], b[0]))) {
    const no = disliked.get(openid);
    const values = new Map<string, number>();
    let latestLike: string | undefined;
    list.sort((a, b) => byVid(b.at, a.at) || byVid(a.vid, b.vid) || byVid(a.kind, b.kind));
    for (const a of list) {
      if (no?.has(a.vid)) continue;
      const value = a.kind === 'like' ? 1 : o.viewWeight;
      if ((values.get(a.vid) ?? 0) >= value) continue;
      if (!values.has(a.vid) && values.size >= o.actionsPerPerson) continue;
      values.set(a.vid, value);
      if (a.kind === 'like') latestLike ??= a.vid;
    }
    if (values.size === 0) continue;
    people.push({ values, latestLike });
    for (const [vid, x] of values) mass.set(vid, (mass.get(vid) ?? 0) + x * x);
  }
  const chosen = options.lambdaShare === undefined ? chooseLambdaShare(people, mass, o) : { share: options.lambdaShare, hits: [], judged: 0 };
  const m = matrixOver(people, mass, o.maxVideos);
  const n = m.vids.length;
  const lambda = Math.max(o.minLambda, chosen.share * m.meanDiagonal);
  const lists = new Map<string, Neighbour[]>();
  if (n > 1) {
    cutRows(easeWeights(gramMatrix(m.rows, n), n, lambda), n, o.perVideo, o.minWeight).forEach((top, i) => {
      if (top.length) lists.set(m.vids[i]!, top.map((t) => ({ vid: m.vids[t.index]!, sim: t.weight })));
    });
  }
  return { lists, videos: n, people: people.length, entries: m.entries, lambda, lambdaShare: chosen.share, validation: { judged: chosen.judged, hits: chosen.hits } };
}

/**
 * How strongly a candidate goes with what a person did: the sum, over the lists of their latest
 * likes and views, of the weight each list gives it times the action's own weight (1 for a like,
 * ITEM_MODEL.viewWeight for a view).
 */
export function neighbourScores(lists: Iterable<{ list: Neighbour[]; weight: number }>): Map<string, number> {
  const scores = new Map<string, number>();
  for (const { list, weight } of lists) for (const n of list) scores.set(n.vid, (scores.get(n.vid) ?? 0) + weight * n.sim);
  return scores;
}

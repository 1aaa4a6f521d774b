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
   * The ridge penalty as a share of the mean diagonal of X'X (a video's mean interaction mass), at
   * least `minLambda`: it scales with the data, so a thin world's weights stay small.
   */
  lambdaShare: 1,
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
}

const byVid = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Trains the model on the given actions; `disliked` holds each person's disliked vids (their views
 * and likes of those do not count). Deterministic: the same actions give the same lists.
 */
export function trainItemModel(actions: Iterable<Action>, disliked: ReadonlyMap<string, ReadonlySet<string>> = new Map(), options: Partial<typeof ITEM_MODEL> = {}): ItemModel {
  const o = { ...ITEM_MODEL, ...options };
  const byPerson = new Map<string, Action[]>();
  for (const a of actions) {
    const list = byPerson.get(a.openid);
    if (list) list.push(a);
    else byPerson.set(a.openid, [a]);
  }
  // Each person's latest actions: a video's value is its strongest (a like beats a view).
  const people: Map<string, number>[] = [];
  const mass = new Map<string, number>();
  for (const [openid, list] of [...byPerson.entries()].sort((a, b) => byVid(a[0], b[0]))) {
    const no = disliked.get(openid);
    const values = new Map<string, number>();
    list.sort((a, b) => byVid(b.at, a.at) || byVid(a.vid, b.vid) || byVid(a.kind, b.kind));
    for (const a of list) {
      if (no?.has(a.vid)) continue;
      const value = a.kind === 'like' ? 1 : o.viewWeight;
      if ((values.get(a.vid) ?? 0) >= value) continue;
      if (!values.has(a.vid) && values.size >= o.actionsPerPerson) continue;
      values.set(a.vid, value);
    }
    if (values.size === 0) continue;
    people.push(values);
    for (const [vid, x] of values) mass.set(vid, (mass.get(vid) ?? 0) + x * x);
  }
  const vids = [...mass.keys()].sort((a, b) => mass.get(b)! - mass.get(a)! || byVid(a, b)).slice(0, o.maxVideos);
  const index = new Map(vids.map((vid, i) => [vid, i]));
  const n = vids.length;
  const rows: SparseRow[] = [];
  let entries = 0;
  for (const values of people) {
    const items: number[] = [];
    const xs: number[] = [];
    for (const [vid, x] of values) {
      const i = index.get(vid);
      if (i === undefined) continue;
      items.push(i);
      xs.push(x);
    }
    entries += items.length;
    if (items.length > 0) rows.push({ items, values: xs });
  }
  const meanDiagonal = n ? vids.reduce((s, vid) => s + mass.get(vid)!, 0) / n : 0;
  const lambda = Math.max(o.minLambda, o.lambdaShare * meanDiagonal);
  const lists = new Map<string, Neighbour[]>();
  if (n > 1) {
    const b = easeWeights(gramMatrix(rows, n), n, lambda);
    for (let i = 0; i < n; i++) {
      const top = topOfRow(b, n, i, o.perVideo, o.minWeight);
      if (top.length) lists.set(vids[i]!, top.map((t) => ({ vid: vids[t.index]!, sim: t.weight })));
    }
  }
  return { lists, videos: n, people: people.length, entries, lambda };
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

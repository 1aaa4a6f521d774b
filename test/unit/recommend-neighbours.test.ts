import { describe, expect, it } from 'vitest';
import { easeWeights, gramMatrix, invertInPlace, topOfRow } from '../../lib/features/recommend/ease.js';
import { ITEM_MODEL, neighbourScores, trainItemModel, type Action } from '../../lib/features/recommend/neighbours.js';
import { neighbourCandidates, neighbourItem, neighbourSignature } from '../../lib/features/recommend/neighbour-items.js';
import { seededRandom } from '../../lib/platform/seeded-random.js';

/** The learned model (lib/features/recommend/ease.ts, lib/features/recommend/neighbours.ts), against values computed by hand. */
const acts = (openid: string, vids: string[], kind: Action['kind'] = 'like', day = 1): Action[] =>
  vids.map((vid, i) => ({ openid, vid, kind, at: `2026-11-${String(day).padStart(2, '0')}T00:00:${String(i).padStart(2, '0')}Z` }));
const get = (lists: Map<string, { vid: string; sim: number }[]>, a: string, b: string) => lists.get(a)?.find((n) => n.vid === b)?.sim;

describe('EASE in closed form', () => {
  it('inverts a symmetric positive definite matrix (A A^-1 = I)', () => {
    const n = 7;
    const rand = seededRandom(5);
    const x = Array.from({ length: n + 3 }, () => Array.from({ length: n }, () => rand()));
    const a = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] = (i === j ? 0.5 : 0) + x.reduce((s, row) => s + row[i]! * row[j]!, 0);
    const inverse = Float64Array.from(a);
    invertInPlace(inverse, n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let product = 0;
        for (let k = 0; k < n; k++) product += a[i * n + k]! * inverse[k * n + j]!;
        expect(product).toBeCloseTo(i === j ? 1 : 0, 10);
      }
    }
  });

  it('gives two videos the weight c / (G_ii + lambda) of each other (the 2 x 2 case by hand)', () => {
    // Rows: (1, 1), (1, 0), (0.5, 1): G = [[2.25, 1.5], [1.5, 2]].
    const g = gramMatrix(
      [
        { items: [0, 1], values: [1, 1] },
        { items: [0], values: [1] },
        { items: [0, 1], values: [0.5, 1] },
      ],
      2,
    );
    expect([...g]).toEqual([2.25, 1.5, 1.5, 2]);
    const b = easeWeights(g, 2, 1);
    // P = (G + I)^-1; B[0][1] = -P01 / P11 = G01 / (G00 + 1); B[1][0] = G10 / (G11 + 1).
    expect(b[1]).toBeCloseTo(1.5 / 3.25, 12);
    expect(b[2]).toBeCloseTo(1.5 / 3, 12);
    expect(b[0]).toBe(0);
    expect(topOfRow(b, 2, 0, 5)).toEqual([{ index: 1, weight: b[1] }]);
  });
});

describe('trainItemModel', () => {
  it('is EASE over likes (1) and views (the view weight), with the ridge penalty from the data', () => {
    const model = trainItemModel([...acts('u1', ['a', 'b']), ...acts('u2', ['a']), ...acts('u2', ['b'], 'view')], new Map(), { minLambda: 0, lambdaShare: 1 });
    const v = ITEM_MODEL.viewWeight;
    const [gaa, gbb, gab] = [2, 1 + v * v, 1 + v];
    const lambda = (gaa + gbb) / 2;
    expect(model.lambda).toBeCloseTo(lambda, 12);
    expect(get(model.lists, 'a', 'b')).toBeCloseTo(gab / (gaa + lambda), 12);
    expect(get(model.lists, 'b', 'a')).toBeCloseTo(gab / (gbb + lambda), 12);
    expect(model).toMatchObject({ videos: 2, people: 2, entries: 4 });
  });

  it('counts a like over a view of the same video, and nothing the person disliked', () => {
    const liked = trainItemModel([...acts('u', ['a', 'b']), ...acts('u', ['b'], 'view', 2)], new Map(), { minLambda: 1, lambdaShare: 0 });
    // b's like (1) wins over its later view: G = [[1, 1], [1, 1]].
    expect(get(liked.lists, 'a', 'b')).toBeCloseTo(1 / 2, 12);
    const disliked = trainItemModel([...acts('u', ['a', 'b']), ...acts('w', ['a', 'c'])], new Map([['u', new Set(['b'])]]), { minLambda: 1, lambdaShare: 0 });
    expect(disliked.lists.has('b')).toBe(false);
    expect(get(disliked.lists, 'a', 'c')).toBeCloseTo(1 / 3, 12);
  });

  it('keeps a person\'s latest actions, the videos with the most interactions, and the top of each list', () => {
    const capped = trainItemModel([...acts('u', ['old'], 'like', 1), ...acts('u', ['n1', 'n2'], 'like', 2)], new Map(), { actionsPerPerson: 2 });
    expect(capped.lists.has('old')).toBe(false);
    expect(capped.lists.get('n1')!.map((n) => n.vid)).toEqual(['n2']);
    const few = trainItemModel([...acts('u', ['a', 'b', 'c']), ...acts('w', ['a', 'b'])], new Map(), { maxVideos: 2 });
    expect(few.videos).toBe(2);
    expect([...few.lists.keys()].sort()).toEqual(['a', 'b']);
    const top = trainItemModel([...acts('u', ['a', 'b', 'c', 'd']), ...acts('w', ['a', 'b'])], new Map(), { perVideo: 1 });
    expect(top.lists.get('a')!.map((n) => n.vid)).toEqual(['b']);
  });

  it('gives a video nobody else acted on with another no list, and trains the same twice', () => {
    expect(trainItemModel(acts('solo', ['only'])).lists.size).toBe(0);
    const world = [...acts('u1', ['a', 'b', 'c']), ...acts('u2', ['b', 'c']), ...acts('u3', ['c', 'a'], 'view')];
    expect(trainItemModel(world)).toEqual(trainItemModel([...world].reverse()));
  });
});

describe('the ridge penalty chosen on the training data', () => {
  // p0..p9 liked x, then t (their latest); q0..q9 liked x and t, then z (their latest).
  const world = Array.from({ length: 10 }, (_, k) => [...acts(`p${k}`, ['x', 't']), ...acts(`q${k}`, ['x', 't']), ...acts(`q${k}`, ['z'], 'like', 2)]).flat();

  it('holds out each person\'s latest like and picks the share whose served lists find it most often (ties: the larger)', () => {
    const model = trainItemModel(world, new Map(), { minValidation: 5, lambdaShares: [1, 4] });
    // Without their t, the p_k find it through x's list (the q_k put x and t together) whatever the
    // share; without their z, the q_k find nothing (z is in no training row).
    expect(model.validation).toEqual({ judged: 20, hits: [10, 10] });
    expect(model.lambdaShare).toBe(4);
    // The model itself is trained on everything: x and t 20 likes each, z 10.
    expect(model.lambda).toBeCloseTo((4 * 50) / 3, 9);
  });

  it('takes the middle of the grid when too few people can be judged, and a given share without validating', () => {
    expect(trainItemModel(world, new Map(), { minValidation: 21, lambdaShares: [1, 4, 9] })).toMatchObject({ lambdaShare: 4, validation: { judged: 20, hits: [] } });
    expect(trainItemModel(world, new Map(), { lambdaShare: 7 })).toMatchObject({ lambdaShare: 7, validation: { judged: 0, hits: [] } });
  });
});

describe('neighbourScores and the stored lists', () => {
  it('sums a candidate\'s weights over the lists, each times its action\'s weight', () => {
    const scores = neighbourScores([
      { list: [{ vid: 'x', sim: 0.5 }, { vid: 'y', sim: 0.25 }], weight: 1 },
      { list: [{ vid: 'x', sim: 0.5 }], weight: 0.25 },
    ]);
    expect(Object.fromEntries(scores)).toEqual({ x: 0.625, y: 0.25 });
  });

  it('round-trips a list through its stored item, and signs only vids and weights in steps of 5 % of the strongest', () => {
    const entry = { vid: 'v1', sim: 0.123456, author_openid: 'u_a', tags: ['robotics', 'expo'], created_at: '2026-11-01T10:00:00.000Z', trend: 123.456789 };
    const second = { ...entry, vid: 'v2', sim: 0.06 };
    const item = neighbourItem('v0', [entry], '2026-11-26T00:00:00.000Z');
    expect(item).toMatchObject({ pk: 'VIDEO#v0', sk: 'NEIGHBOURS', entity: 'neighbours' });
    expect(neighbourCandidates(item)).toEqual([{ ...entry, sim: 0.1235, trend: 123.5 }]);
    expect(neighbourSignature([entry, { ...second, sim: 0.061 }])).toBe(neighbourSignature([entry, second]));
    expect(neighbourSignature([entry, { ...second, sim: 0.1 }])).not.toBe(neighbourSignature([entry, second]));
    expect(neighbourSignature([{ ...entry, vid: 'v3' }])).not.toBe(neighbourSignature([entry]));
    expect(neighbourCandidates(undefined)).toEqual([]);
  });
});

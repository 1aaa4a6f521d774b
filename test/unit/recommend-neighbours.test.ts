import { describe, expect, it } from 'vitest';
import { computeNeighbours, neighbourScores, type Like } from '../../lib/features/recommend/neighbours.js';
import { neighbourCandidates, neighbourItem, neighbourSignature } from '../../lib/features/recommend/neighbour-items.js';

/** The learned model's similarity (lib/features/recommend/neighbours.ts), against values computed by hand. */
const likes = (openid: string, vids: string[], day = 1): Like[] => vids.map((vid, i) => ({ openid, vid, at: `2026-11-${String(day).padStart(2, '0')}T00:00:${String(i).padStart(2, '0')}Z` }));
const w = (n: number) => 1 / Math.log2(2 + n);
const get = (model: Map<string, { vid: string; sim: number }[]>, a: string, b: string) => model.get(a)?.find((n) => n.vid === b)?.sim;

describe('computeNeighbours', () => {
  it('is the weighted cosine over co-likes, shrunk by the number of shared likers', () => {
    // u1 likes a, b; u2 likes a, b, c; u3 likes c.
    const model = computeNeighbours([...likes('u1', ['a', 'b']), ...likes('u2', ['a', 'b', 'c']), ...likes('u3', ['c'])], { shrink: 2 });
    const [w1, w2, w3] = [w(2), w(3), w(1)];
    // a and b: liked by u1 and u2 (c = 2); n(a) = n(b) = w1^2 + w2^2.
    expect(get(model, 'a', 'b')).toBeCloseTo(((w1 ** 2 + w2 ** 2) / (w1 ** 2 + w2 ** 2)) * (2 / 4), 12);
    // a and c: only u2 (c = 1); n(c) = w2^2 + w3^2.
    expect(get(model, 'a', 'c')).toBeCloseTo((w2 ** 2 / Math.sqrt((w1 ** 2 + w2 ** 2) * (w2 ** 2 + w3 ** 2))) * (1 / 3), 12);
    // Symmetric, never itself, strongest first.
    expect(get(model, 'c', 'a')).toBeCloseTo(get(model, 'a', 'c')!, 12);
    expect(model.get('a')!.map((n) => n.vid)).toEqual(['b', 'c']);
  });

  it('lets a person who likes everything say less than one who likes two things', () => {
    const picky = computeNeighbours([...likes('picky', ['x', 'y']), ...likes('other', ['x', 'z'])]);
    const allLiker = Array.from({ length: 50 }, (_, i) => `v${i}`);
    const broad = computeNeighbours([...likes('broad', ['x', 'y', ...allLiker]), ...likes('other', ['x', 'z'])], { perVideo: 100 });
    // x~y rests on one liker in both; that liker liked 2 videos in one world and 52 in the other.
    expect(get(picky, 'x', 'y')! > get(broad, 'x', 'y')!).toBe(true);
  });

  it('keeps the top perVideo, ties by vid, and pairs only a person\'s latest likes', () => {
    const many = computeNeighbours(likes('u', ['a', 'e', 'd', 'c', 'b']), { perVideo: 2 });
    expect(many.get('a')!.map((n) => n.vid)).toEqual(['b', 'c']);
    // The oldest like (day 1) falls outside the latest 2 (day 2): it pairs with nothing.
    const capped = computeNeighbours([...likes('u', ['old'], 1), ...likes('u', ['n1', 'n2'], 2)], { likesPerPerson: 2 });
    expect(capped.has('old')).toBe(false);
    expect(capped.get('n1')!.map((n) => n.vid)).toEqual(['n2']);
  });

  it('gives a video liked only by people who liked nothing else no neighbours', () => {
    expect(computeNeighbours(likes('solo', ['only'])).size).toBe(0);
  });
});

describe('neighbourScores and the stored lists', () => {
  it('sums a candidate\'s similarities over the lists of the likes it is near', () => {
    const scores = neighbourScores([
      [{ vid: 'x', sim: 0.5 }, { vid: 'y', sim: 0.25 }],
      [{ vid: 'x', sim: 0.125 }],
    ]);
    expect(Object.fromEntries(scores)).toEqual({ x: 0.625, y: 0.25 });
  });

  it('round-trips a list through its stored item, and signs only vids and similarities in steps of 0.05', () => {
    const entry = { vid: 'v1', sim: 0.123456, author_openid: 'u_a', tags: ['robotics', 'expo'], created_at: '2026-11-01T10:00:00.000Z', trend: 123.456789 };
    const item = neighbourItem('v0', [entry], '2026-11-26T00:00:00.000Z');
    expect(item).toMatchObject({ pk: 'VIDEO#v0', sk: 'NEIGHBOURS', entity: 'neighbours' });
    expect(neighbourCandidates(item)).toEqual([{ ...entry, sim: 0.123, trend: 123.5 }]);
    expect(neighbourSignature([{ ...entry, sim: 0.11 }])).toBe(neighbourSignature([entry]));
    expect(neighbourSignature([{ ...entry, sim: 0.2 }])).not.toBe(neighbourSignature([entry]));
    expect(neighbourSignature([{ ...entry, vid: 'v2' }])).not.toBe(neighbourSignature([entry]));
    expect(neighbourCandidates(undefined)).toEqual([]);
  });
});

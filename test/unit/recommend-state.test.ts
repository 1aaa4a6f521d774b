import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/platform/errors.js';
import { demoVideos } from '../../local/demo-catalog.js';
import { signCursor } from '../../lib/platform/secrets/signed-cursor.js';
import { decodeCursor, encodeCursor } from '../../lib/features/recommend/cursor.js';
import { addTaste, feedChunkAttributes, fromStoredEntry, LIKED_RECENT_CAP, likedHash, likedVids, parseFeedState, RESERVOIR_CAP, SEEN_DAYS, tagAttribute, TASTE, tasteUnit, toStoredEntry, VIEW_TASTE_DAYS, WALK_SKIP_CAP } from '../../lib/features/recommend/feed-state.js';
import { UpdateBuilder } from '../../lib/platform/db/update-builder.js';
import { bestGram, matchesTerm, normalizeSearchText, searchGrams, videoSearchText } from '../../lib/entities/catalog/search-index.js';

const NOW = Date.UTC(2026, 10, 21, 12);

describe('search grams', () => {
  it('normalizes full-width forms and case', () => {
    expect(normalizeSearchText('ＲＯＢＯＴ　机器人')).toBe('robot 机器人');
  });

  it('indexes CJK characters and pairs, and alphanumeric trigrams within words', () => {
    expect(new Set(searchGrams(normalizeSearchText('机器人 AI Robot')))).toEqual(new Set(['机', '器', '人', '机器', '器人', 'rob', 'obo', 'bot']));
  });

  it('picks a CJK pair first, the rarest trigram otherwise, and nothing for short terms', () => {
    expect(bestGram('焊接机器人')).toHaveLength(2);
    expect(['uiz', 'qui']).toContain(bestGram('quiz'));
    expect(bestGram('车')).toBe('车');
    expect(bestGram('ai')).toBeUndefined();
    expect(bestGram('5g')).toBeUndefined();
  });

  it('finds every video containing a term under the term\'s gram (no false negatives)', () => {
    const videos = demoVideos(150, NOW);
    const terms = ['机器人', '储能', '车', 'robots', 'Case study', 'manufact', 'hannover', '智能制造：'];
    for (const term of terms) {
      const t = normalizeSearchText(term);
      const gram = bestGram(t)!;
      expect(gram, term).toBeDefined();
      for (const v of videos.filter((video) => matchesTerm(video, t))) {
        expect(searchGrams(videoSearchText(v)), `${term} in ${v.vid}`).toContain(gram);
      }
    }
  });
});

describe('cursor', () => {
  const c = { o: 'hot' as const, w: 'abc123', ph: 1 as const, p: 'Vid_123', t: 2 ** -300 };

  it('round-trips a cursor the server signed', async () => {
    expect(await decodeCursor(await encodeCursor(c))).toEqual(c);
    expect(await decodeCursor('')).toBeUndefined();
  });

  it('refuses what the server did not issue: unsigned, altered, signed for another list, or out of range', async () => {
    const signed = await encodeCursor(c);
    const [payload, mac] = signed.split('.') as [string, string];
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    const forged = [
      '%%%',
      Buffer.from(JSON.stringify(c)).toString('base64url'),
      `${Buffer.from(JSON.stringify({ ...c, t: 1e308 })).toString('base64url')}.${mac}`,
      `${flip(payload, 3)}.${mac}`,
      `${payload}.${flip(mac, 5)}`,
      // The last character of a 16-byte mac carries spare bits: a different spelling of the same bytes.
      `${payload}.${flip(mac, mac.length - 1)}`,
      `${payload}.`,
      await signCursor('export:comments', c),
      // Signed (as by a future or past version of the code) but holding a number DynamoDB cannot store.
      await signCursor('fav_index', { ...c, t: 1e308 }),
      await signCursor('fav_index', { ...c, t: 5e-324 }),
      await signCursor('fav_index', { ...c, p: 'has space' }),
    ];
    for (const bad of forged) await expect(decodeCursor(bad), bad).rejects.toThrow(ValidationError);
    await expect(decodeCursor(`${payload}.${flip(mac, 5)}`)).rejects.toThrow(/fav_index/);
  });
});

describe('feed state', () => {
  const item = {
    [tagAttribute('机器人')]: 6 * tasteUnit(NOW),
    [tagAttribute('物流')]: 2 * tasteUnit(NOW - 14 * 86_400_000),
    disliked: new Set(['v9']),
    tw: 9 * tasteUnit(NOW),
    lr: Array.from({ length: LIKED_RECENT_CAP + 3 }, (_, i) => ({ vid: `l${i}`, author_openid: 'a', tags: [], created_at: '2026-11-01T00:00:00Z' })),
  };

  it('reads the decayed taste and the dislikes of the state item; without call records nothing is seen, served or reserved', () => {
    const state = parseFeedState(item, NOW);
    expect(state.exists).toBe(true);
    expect(state.tags.get('机器人')).toBeCloseTo(6, 9);
    expect(state.tags.get('物流')).toBeCloseTo(1, 9);
    expect(state.tasteTotal).toBeCloseTo(9, 9);
    expect(state.disliked).toEqual(new Set(['v9']));
    expect(state).toMatchObject({ seen: new Set(), served: new Set(), reservoir: [], followQueue: [], walks: {}, records: 0 });
    expect(state.explore).toBeUndefined();
    expect(state.followSince).toBeUndefined();
  });

  it('keeps only the latest likes, from vids or from the entries of older stores, and counts them as liked', () => {
    const state = parseFeedState(item, NOW);
    expect(state.likedRecent).toEqual(Array.from({ length: LIKED_RECENT_CAP }, (_, i) => `l${i + 3}`));
    expect(state.liked.has(likedHash(`l${LIKED_RECENT_CAP + 2}`))).toBe(true);
    expect(likedVids(['a', { vid: 'b', tags: [] }, 3, null])).toEqual(['a', 'b']);
    // The liked chunks' hashes join the latest likes'.
    expect(parseFeedState({ lc: 1 }, NOW, [], [{ h: new Set([likedHash('old')]) }]).liked.has(likedHash('old'))).toBe(true);
  });

  const record = (atMs: number, attributes: Record<string, unknown>) => ({ at: atMs, ...attributes });
  const hour = 3_600_000;

  it('adds the call records of the last 14 days: views with their taste (seen: the last 7 days), served since the refresh, walks, rec\'s newest position', () => {
    const chunks = [
      record(NOW - 1 * hour, { v: ['c1'], vt: { 机器人: 1 }, vn: 1, sv: ['p3'] }),
      record(NOW - 2 * hour, { sv: ['p2'], rf: true, ex: 'e2', rv: [toStoredEntry({ vid: 'r2', a: 'a', t: ['x', 'y'], c: '2026-11-20T00:00:00.000Z', tr: 1.23456 })], fs: '2026-11-21T10:00:00.000Z' }),
      record(NOW - 3 * hour, { sv: ['p1'], ex: 'e1', wo: 'new', wi: 'w2', wk: ['k3'] }),
      record(NOW - 4 * hour, { wo: 'new', wi: 'w2', wk: ['k1', 'k2'] }),
      record(NOW - 5 * hour, { wo: 'new', wi: 'w1', wk: ['old'] }),
      record(NOW - 14 * hour, { v: ['c2'], vt: { 机器人: 1, 物流: 1 }, vn: 1 }),
      // Before the seen window: the views count in the taste (VIEW_TASTE_DAYS), not as seen.
      record(NOW - (SEEN_DAYS + 1) * 86_400_000, { v: ['old'], vt: { old: 1 }, vn: 1, ex: 'stale' }),
      // Before VIEW_TASTE_DAYS: ignored (DynamoDB's TTL removes it later).
      record(NOW - (VIEW_TASTE_DAYS + 1) * 86_400_000, { v: ['gone'], vt: { gone: 1 }, vn: 1 }),
    ];
    const state = parseFeedState(item, NOW, [...chunks].reverse());
    expect(state.records).toBe(7);
    expect(state.tags.get('old')).toBeCloseTo(TASTE.view * (tasteUnit(NOW - (SEEN_DAYS + 1) * 86_400_000) / tasteUnit(NOW)), 9);
    expect(state.seen).toEqual(new Set(['c1', 'c2']));
    expect(state.served).toEqual(new Set(['p3', 'p2']));
    expect(state.explore).toBe('e2');
    expect(state.reservoir).toEqual([{ vid: 'r2', a: 'a', t: ['x', 'y'], c: '2026-11-20T00:00:00.000Z', tr: 1.235 }]);
    expect(state.followSince).toBe('2026-11-21T10:00:00.000Z');
    expect(state.followQueue).toEqual([]);
    expect(state.walks.new).toEqual({ id: 'w2', skipped: ['k1', 'k2', 'k3'] });
    const decay = (ms: number) => tasteUnit(NOW - ms) / tasteUnit(NOW);
    expect(state.tags.get('机器人')).toBeCloseTo(6 + TASTE.view * (decay(hour) + decay(14 * hour)), 9);
    expect(state.tags.get('物流')).toBeCloseTo(1 + TASTE.view * decay(14 * hour), 9);
    expect(state.tags.has('gone')).toBe(false);
    expect(state.tasteTotal).toBeCloseTo(9 + TASTE.view * (decay(hour) + decay(14 * hour) + decay((SEEN_DAYS + 1) * 86_400_000)), 9);
  });

  it('orders records of the same millisecond by the order of their calls', () => {
    let state = parseFeedState(undefined, NOW);
    const refreshRec = feedChunkAttributes(state, { viewed: [], served: ['a'], refresh: true, explore: 'x' }, NOW)!;
    state = parseFeedState(undefined, NOW, [refreshRec]);
    const refreshWalk = feedChunkAttributes(state, { viewed: [], served: [], refresh: true, walk: { order: 'new', id: 'w', skipped: [], fresh: true } }, NOW)!;
    // Whatever order the Query returns them in (their keys sort by a random seed at equal times).
    for (const chunks of [[refreshRec, refreshWalk], [refreshWalk, refreshRec]]) expect(parseFeedState(undefined, NOW, chunks).served).toEqual(new Set());
  });

  it('records one call: views with tag counts, served, a refresh, a walk\'s deferrals, rec\'s position; nothing when nothing changed', () => {
    const state = parseFeedState(item, NOW);
    const entry = { vid: 'f2', a: 'author', t: ['t'], c: '2026-11-21T00:00:00.000Z', tr: 0 };
    const rv = Array.from({ length: RESERVOIR_CAP + 5 }, (_, i) => ({ ...entry, vid: `r${i}` }));
    const attrs = feedChunkAttributes(state, { viewed: [{ vid: 'v7', tags: ['物流', '物流'] }, { vid: 'v8', tags: [] }], served: ['v9'], refresh: true, explore: null, reservoir: rv, follow: { since: 'S', queue: [entry] } }, NOW)!;
    expect(attrs).toMatchObject({ entity: 'feed_chunk', at: NOW, v: ['v7', 'v8'], vt: { 物流: 1 }, vn: 2, sv: ['v9'], rf: true, ex: '', fs: 'S', fq: [toStoredEntry(entry)] });
    expect(attrs.ttl).toBeGreaterThan(NOW / 1000 + SEEN_DAYS * 86_400);
    expect(attrs.rv).toHaveLength(RESERVOIR_CAP);
    expect(fromStoredEntry((attrs.rv as unknown[])[0])).toEqual({ ...entry, vid: 'r0' });
    expect(attrs).not.toHaveProperty('wo');

    expect(feedChunkAttributes(state, { viewed: [], served: [], refresh: false, walk: { order: 'hot', id: 'w9', skipped: [], fresh: false } }, NOW)).toBeUndefined();
    expect(feedChunkAttributes(state, { viewed: [], served: [], refresh: false, walk: { order: 'hot', id: 'w9', skipped: [], fresh: true } }, NOW)).toMatchObject({ wo: 'hot', wi: 'w9', wk: [] });
    const full = parseFeedState(undefined, NOW, [record(NOW - hour, { wo: 'q', wi: 'wq', wk: Array.from({ length: WALK_SKIP_CAP - 1 }, (_, i) => `k${i}`) })]);
    expect(feedChunkAttributes(full, { viewed: [], served: [], refresh: false, walk: { order: 'q', id: 'wq', skipped: ['a', 'b'], fresh: false } }, NOW)).toMatchObject({ wk: ['a'] });
  });

  it('counts every positive event in the taste total (a like 3, a view 0.5 whatever its tags), never a dislike', () => {
    const u = new UpdateBuilder();
    addTaste(u, ['a', 'b'], TASTE.like, NOW);
    addTaste(u, ['a'], TASTE.dislike, NOW);
    const { UpdateExpression, ExpressionAttributeNames, ExpressionAttributeValues } = u.params();
    const added = (attribute: string) =>
      Object.entries(ExpressionAttributeNames)
        .filter(([, name]) => name === attribute)
        .map(([placeholder]) => ExpressionAttributeValues![UpdateExpression.match(new RegExp(`${placeholder} (:v\\d+)`))![1]!] as number);
    expect(added('tw')).toEqual([TASTE.like * tasteUnit(NOW)]);
    expect(added(tagAttribute('a'))).toEqual([TASTE.like * tasteUnit(NOW), TASTE.dislike * tasteUnit(NOW)]);

    const views = feedChunkAttributes(parseFeedState(undefined, NOW), { viewed: [{ vid: 'v1', tags: ['x', 'y'] }, { vid: 'v2', tags: [] }], served: [], refresh: false }, NOW)!;
    const state = parseFeedState(undefined, NOW, [views]);
    expect(state.tasteTotal).toBeCloseTo(2 * TASTE.view, 12);
    expect(state.tags.get('x')).toBeCloseTo(TASTE.view, 12);
  });
});

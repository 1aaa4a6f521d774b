import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/errors.js';
import { demoVideos } from '../../lib/hub/demo-catalog.js';
import { signCursor } from '../../lib/auth/signed-cursor.js';
import { decodeCursor, encodeCursor } from '../../lib/recommend/cursor.js';
import { addTaste, epochDay, feedStateUpdate, mergeCoLiked, parseFeedState, SEEN_DAYS, tagAttribute, TASTE, tasteUnit } from '../../lib/recommend/feed-state.js';
import { UpdateBuilder } from '../../lib/db/update-builder.js';
import { bestGram, matchesTerm, normalizeSearchText, searchGrams, videoSearchText } from '../../lib/catalog/search-index.js';

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
  const today = epochDay(NOW);
  const item = {
    [`s_${today}`]: new Set(['v1']),
    [`s_${today - SEEN_DAYS}`]: new Set(['v2']),
    [`s_${today - SEEN_DAYS - 1}`]: new Set(['v3']),
    [tagAttribute('机器人')]: 6 * tasteUnit(NOW),
    [tagAttribute('物流')]: 2 * tasteUnit(NOW - 14 * 86_400_000),
    disliked: new Set(['v9']),
    served: new Set(['v5']),
    tw: 9 * tasteUnit(NOW),
    fs: '2026-11-20T00:00:00.000Z',
    fq: [{ vid: 'f1', a: 'author', t: ['机器人'], c: '2026-11-20T10:00:00.000Z', tr: 0 }],
    lr: Array.from({ length: 23 }, (_, i) => ({ vid: `l${i}`, author_openid: 'a', tags: [], created_at: '2026-11-01T00:00:00Z' })),
  };

  it('reads seen days within the window, decayed taste and the sets', () => {
    const state = parseFeedState(item, NOW);
    expect(state.seen).toEqual(new Set(['v1', 'v2']));
    expect(state.tags.get('机器人')).toBeCloseTo(6, 9);
    expect(state.tags.get('物流')).toBeCloseTo(1, 9);
    expect(state.tasteTotal).toBeCloseTo(9, 9);
    expect(state.followSince).toBe('2026-11-20T00:00:00.000Z');
    expect(state.followQueue.map((e) => e.vid)).toEqual(['f1']);
    expect(state.disliked).toEqual(new Set(['v9']));
  });

  it('records views, drops expired days, trims the likes list and resets served on refresh', () => {
    const state = parseFeedState(item, NOW);
    const update = feedStateUpdate(state, { viewed: [{ vid: 'v7', tags: ['物流'] }], served: ['v8'], refresh: true }, NOW);
    const { UpdateExpression, ExpressionAttributeNames, ExpressionAttributeValues } = update.params();
    const names = Object.values(ExpressionAttributeNames);
    expect(names).toContain(`s_${today}`);
    expect(names).toContain(`s_${today - SEEN_DAYS - 1}`);
    expect(names).not.toContain(`s_${today - SEEN_DAYS}`);
    expect(UpdateExpression).toMatch(/REMOVE .*\[0\].*\[1\].*\[2\]/);
    expect(Object.values(ExpressionAttributeValues ?? {})).toContainEqual(new Set(['v8']));
    expect(UpdateExpression).toMatch(/SET .*= :v\d+/);
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

    const views = feedStateUpdate(parseFeedState(undefined, NOW), { viewed: [{ vid: 'v1', tags: ['x', 'y'] }, { vid: 'v2', tags: [] }], served: [], refresh: false }, NOW).params();
    const twPlaceholder = Object.entries(views.ExpressionAttributeNames).find(([, n]) => n === 'tw')![0];
    const value = views.UpdateExpression.match(new RegExp(`${twPlaceholder} (:v\\d+)`))![1]!;
    expect(views.ExpressionAttributeValues![value]).toBeCloseTo(2 * TASTE.view * tasteUnit(NOW), 12);
  });

  it('records the rec call\'s time and the reserved follows left over, dropping the queue once empty', () => {
    const state = parseFeedState(item, NOW);
    const entry = { vid: 'f2', a: 'author', t: [], c: '2026-11-21T00:00:00.000Z', tr: 0 };
    const kept = feedStateUpdate(state, { viewed: [], served: [], refresh: false, follow: { since: '2026-11-21T00:00:00.000Z', queue: [entry] } }, NOW).params();
    expect(Object.values(kept.ExpressionAttributeValues ?? {})).toContainEqual([entry]);
    expect(Object.values(kept.ExpressionAttributeValues ?? {})).toContain('2026-11-21T00:00:00.000Z');
    const emptied = feedStateUpdate(state, { viewed: [], served: [], refresh: false, follow: { since: '2026-11-21T00:00:00.000Z', queue: [] } }, NOW).params();
    expect(emptied.UpdateExpression).toMatch(/REMOVE .*#a\d+/);
    expect(Object.values(emptied.ExpressionAttributeNames)).toContain('fq');
  });

  it('merges co-liked videos by count, leaving out liked ones', () => {
    const e = (vid: string, n: number) => ({ vid, author_openid: 'a', tags: [], created_at: '2026-11-01T00:00:00Z', n });
    expect(mergeCoLiked([e('a', 2), e('b', 1)], [e('b', 3), e('c', 1), e('liked', 9)], new Set(['liked'])).map((x) => [x.vid, x.n])).toEqual([
      ['b', 4],
      ['a', 2],
      ['c', 1],
    ]);
  });
});

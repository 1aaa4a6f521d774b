import { describe, expect, it } from 'vitest';
import { evaluateSystem, hit, maxPerAuthor, ndcg, randomExpectation, recall, topicPrecision } from '../../bench/feed-eval/metrics.js';
import { controlledWorld, generateWorld, GENRES, QUICK_WORLDS, quantile, TOPIC_TAGS, WORLD_KINDS, WORLDS, worldsOf, worldStatistics, type World, type WorldSpec } from '../../bench/feed-eval/worlds.js';

/** The offline evaluation's instruments (bench/feed-eval): metrics against hand-computed and enumerated values, worlds by their planted structure. */
describe('ranking metrics', () => {
  it('HR, recall and NDCG of a hand-computed answer', () => {
    const list = [5, 1, 7, 2, 9];
    expect(hit(list, [7, 30])).toBe(true);
    expect(hit(list, [30])).toBe(false);
    expect(hit(list, [9], 4)).toBe(false);
    expect(recall(list, [7, 30])).toBe(0.5);
    // hits at ranks 2 and 3: (1/log2(3) + 1/log2(4)) / (1 + 1/log2(3))
    expect(ndcg(list, [1, 7])).toBeCloseTo((1 / Math.log2(3) + 0.5) / (1 + 1 / Math.log2(3)), 12);
    expect(ndcg(list, [5])).toBe(1);
    expect(ndcg(list, [])).toBe(0);
  });

  it('topic precision and the per-author maximum', () => {
    const topicOf = (v: number) => v % 3;
    expect(topicPrecision([0, 3, 1, 6], [0], topicOf)).toBe(0.75);
    expect(topicPrecision([], [0], topicOf)).toBe(0);
    expect(maxPerAuthor([1, 2, 3, 4, 5], (v) => (v < 4 ? 0 : 1))).toBe(3);
  });

  it('evaluateSystem averages over users and counts coverage, disliked and liked returns', () => {
    const catalog = { size: 10, topicOf: (v: number) => (v < 5 ? 0 : 1), authorOf: (v: number) => v % 2 };
    const m = evaluateSystem(
      [
        { list: [0, 1, 2], relevant: [2], favourites: [0], liked: [], disliked: [1] },
        { list: [5, 6, 2], relevant: [9], favourites: [1], liked: [6], disliked: [] },
      ],
      catalog,
    );
    expect(m.hr).toBe(0.5);
    expect(m.coverage).toBe(0.5);
    expect(m.topicPrecision).toBeCloseTo((1 + 2 / 3) / 2, 12);
    expect(m.dislikedReturned).toBe(1);
    expect(m.likedReturned).toBe(1);
    expect(m.maxPerAuthor).toBe(2);
  });

  it("the random baseline's analytic expectation equals the mean over every possible answer", () => {
    // n = 7 eligible videos, of which 0 and 1 are relevant and 0..2 on-topic; answers of k = 3.
    const n = 7;
    const k = 3;
    const relevant = [0, 1];
    const onTopic = (v: number) => v <= 2;
    const sums = { hr: 0, recall: 0, ndcg: 0, topicPrecision: 0 };
    let answers = 0;
    for (let a = 0; a < n; a++)
      for (let b = 0; b < n; b++)
        for (let c = 0; c < n; c++) {
          if (a === b || b === c || a === c) continue;
          const list = [a, b, c];
          answers++;
          sums.hr += hit(list, relevant, k) ? 1 : 0;
          sums.recall += recall(list, relevant, k);
          sums.ndcg += ndcg(list, relevant, k);
          sums.topicPrecision += list.filter(onTopic).length / k;
        }
    const expected = randomExpectation(n, relevant.length, 3, k);
    expect(expected.hr).toBeCloseTo(sums.hr / answers, 12);
    expect(expected.recall).toBeCloseTo(sums.recall / answers, 12);
    expect(expected.ndcg).toBeCloseTo(sums.ndcg / answers, 12);
    expect(expected.topicPrecision).toBeCloseTo(sums.topicPrecision / answers, 12);
  });
});

describe('evaluation worlds', () => {
  const spec: WorldSpec = WORLDS[0]!;
  const world = generateWorld(spec);

  it('are the same for the same seed and differ for another', () => {
    expect(JSON.stringify(generateWorld(spec))).toBe(JSON.stringify(world));
    expect(JSON.stringify(generateWorld({ ...spec, seed: spec.seed + 1 }).videos)).not.toBe(JSON.stringify(world.videos));
  });

  it('put the dominant generic tag on most videos and a topic tag on every video', () => {
    const share = world.videos.filter((v) => v.tags.includes(world.dominantTag)).length / world.videos.length;
    expect(share).toBeGreaterThan(spec.dominantGenericShare - 0.08);
    expect(share).toBeLessThan(spec.dominantGenericShare + 0.08);
    for (const v of world.videos) expect(v.tags[0]).toBe(world.topicTags[v.topic]);
  });

  it('have specialised authors: most of an author\'s videos are in their home topics', () => {
    const inHome = world.videos.filter((v) => world.authors[v.author]!.homeTopics.includes(v.topic)).length;
    expect(inHome / world.videos.length).toBeGreaterThan(0.85);
  });

  it("hold out likes in the user's favourite topics that the user never liked, disliked or viewed", () => {
    for (const u of world.users) {
      expect(u.heldOut.length).toBeGreaterThanOrEqual(2);
      for (const v of u.heldOut) {
        expect(u.favourites).toContain(world.videos[v]!.topic);
        expect(u.liked).not.toContain(v);
        expect(u.viewed).not.toContain(v);
        expect(u.disliked).not.toContain(v);
      }
      const noise = u.liked.filter((v) => !u.favourites.includes(world.videos[v]!.topic));
      expect(noise.length).toBeGreaterThanOrEqual(1);
      expect(u.follows.length).toBeGreaterThanOrEqual(1);
    }
  });

  it('order events in time, every reaction after its video was published', () => {
    const published = new Map<number, number>();
    let last = -Infinity;
    for (const e of world.events) {
      expect(e.at).toBeGreaterThanOrEqual(last);
      last = e.at;
      if (e.kind === 'publish') published.set(e.video, e.at);
      if (e.kind === 'like' || e.kind === 'dislike') expect(published.get(e.video)).toBeLessThan(e.at);
      if (e.kind === 'view') for (const v of e.videos) expect(published.get(v)).toBeLessThan(e.at);
    }
  });

  it('skew attention to topic 0 in the skewed world', () => {
    const skewed = generateWorld(WORLDS.find((w) => w.popularity === 'skewed')!);
    const fans = (t: number) => skewed.users.filter((u) => u.favourites.includes(t)).length + skewed.crowd.filter((c) => c.favourites.includes(t)).length;
    const others = Array.from({ length: skewed.topicTags.length - 1 }, (_, i) => fans(i + 1));
    expect(fans(0)).toBeGreaterThan(3 * Math.max(...others));
  });

  const named = (kind: string) => generateWorld(WORLDS.find((w) => w.kind === kind)!);
  const likesPerVideo = (w: World) => {
    const n = new Array<number>(w.videos.length).fill(0);
    for (const e of w.events) if (e.kind === 'like') n[e.video]!++;
    return n;
  };

  it('"many-authors": every author has one home topic, every topic 3-5 authors at home in it', () => {
    const w = named('many-authors');
    for (const a of w.authors) expect(a.homeTopics).toHaveLength(1);
    for (let t = 0; t < w.topicTags.length; t++) {
      const home = w.authors.filter((a) => a.homeTopics[0] === t).length;
      expect(home).toBeGreaterThanOrEqual(3);
      expect(home).toBeLessThanOrEqual(5);
    }
  });

  it('"co-liking": no topic in any tag, broad genres on every video, long-tailed like counts from latent tastes', () => {
    const w = named('co-liking');
    const topical = (tag: string) => TOPIC_TAGS.some((t) => tag === t || tag.startsWith(`${t}-`));
    for (const v of w.videos) {
      expect(v.tags.filter(topical)).toEqual([]);
      expect(v.tags.some((tag) => GENRES.includes(tag))).toBe(true);
      expect(v.title).not.toContain(w.topicTags[v.topic]!);
    }
    // Genres are shared: each is on videos of several topics.
    for (const g of GENRES) expect(new Set(w.videos.filter((v) => v.tags.includes(g)).map((v) => v.topic)).size).toBeGreaterThan(2);
    const counts = w.users.map((u) => u.liked.length);
    const meanLikes = counts.reduce((s, n) => s + n, 0) / counts.length;
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(8);
    expect(Math.max(...counts)).toBeLessThanOrEqual(120);
    expect(meanLikes).toBeGreaterThan(30);
    expect(meanLikes).toBeLessThan(50);
    expect(counts.filter((n) => n > 20).length).toBeGreaterThan(w.users.length / 2);
    // Most likes in the favourite topics (a heavy liker who has liked most of them likes elsewhere).
    const onTopic = w.users.map((u) => u.liked.filter((v) => u.favourites.includes(w.videos[v]!.topic)).length / u.liked.length);
    expect(onTopic.reduce((s, x) => s + x, 0) / onTopic.length).toBeGreaterThan(0.7);
    const viewedBefore = new Map<string, number>();
    for (const e of w.events) {
      if (e.kind === 'view' && e.actor.group === 'user') for (const v of e.videos) viewedBefore.set(`${e.actor.index}/${v}`, e.at);
      if (e.kind === 'like' && e.actor.group === 'user') expect(viewedBefore.get(`${e.actor.index}/${e.video}`)).toBeLessThan(e.at);
    }
    for (const u of w.users) {
      for (const v of u.heldOut) {
        expect(u.favourites).toContain(w.videos[v]!.topic);
        expect(u.liked).not.toContain(v);
        expect(u.viewed).not.toContain(v);
      }
    }
  });

  it('"popularity-skew": a few videos of each topic take most of its likes', () => {
    const share = (w: World) => {
      const n = likesPerVideo(w).sort((a, b) => b - a);
      return n.slice(0, n.length / 5).reduce((s, x) => s + x, 0) / n.reduce((s, x) => s + x, 0);
    };
    expect(share(named('popularity-skew'))).toBeGreaterThan(0.6);
    expect(share(world)).toBeLessThan(0.6);
  });

  it('tuning and report seeds: disjoint for every kind, one world per kind and seed, named by both', () => {
    for (const k of WORLD_KINDS) {
      expect(k.tune.length).toBeGreaterThan(0);
      expect(k.report.length).toBeGreaterThan(0);
      expect(k.report.filter((s) => k.tune.includes(s))).toEqual([]);
    }
    const report = worldsOf('report');
    expect(report).toHaveLength(WORLD_KINDS.reduce((n, k) => n + k.report.length, 0));
    expect(new Set(report.map((w) => w.name)).size).toBe(report.length);
    expect(report.find((w) => w.kind === 'uniform')).toMatchObject({ name: 'uniform-7301', seed: 7301, topics: 12 });
    expect(worldsOf([5, 6], ['thin']).map((w) => w.name)).toEqual(['thin-5', 'thin-6']);
    expect(() => worldsOf('report', ['nope'])).toThrow(/unknown world kind nope/);
    // Every world of a full report run, and of a tuning run, stays within the run's time budget (about 40,000 events).
    for (const set of ['report', 'tune'] as const) expect(worldsOf(set).reduce((n, w) => n + generateWorld(w).events.length, 0)).toBeLessThan(40_000);
  });

  it('the controlled case: 10 x 10 videos tagged [topic, "expo"], each author once per topic', () => {
    const c = controlledWorld();
    expect(c.videos).toHaveLength(100);
    for (const v of c.videos) expect(v.tags).toEqual([c.topicTags[v.topic], 'expo']);
    for (let t = 0; t < 10; t++) expect(new Set(c.videos.filter((v) => v.topic === t).map((v) => v.author)).size).toBe(10);
  });
});

describe('"realistic" worlds (latent tastes, statistics like real data\'s)', () => {
  const specs = [...worldsOf('report', ['realistic']), ...worldsOf('tune', ['realistic'])];
  const worlds = specs.map(generateWorld);

  it('long-tailed activity: cold people with 3-5 likes, heavy ones with 100+, median about 20', () => {
    for (const w of worlds) {
      const counts = w.users.map((u) => u.liked.length + u.heldOut.length);
      expect(quantile(counts, 0)).toBeGreaterThanOrEqual(3);
      expect(quantile(counts, 0.1)).toBeLessThanOrEqual(5);
      expect(quantile(counts, 0.5)).toBeGreaterThanOrEqual(14);
      expect(quantile(counts, 0.5)).toBeLessThanOrEqual(28);
      expect(quantile(counts, 1)).toBeGreaterThanOrEqual(100);
      expect(worldStatistics(w).likesPerPerson.median).toBe(quantile(counts, 0.5));
    }
  });

  it('long-tailed popularity: the top 10 % of videos hold a third of the likes or more, several times a tenth', () => {
    for (const w of worlds) expect(worldStatistics(w).topTenthLikeShare).toBeGreaterThan(0.3);
    expect(worldStatistics(generateWorld(WORLDS[0]!)).topTenthLikeShare).toBeLessThan(0.3);
  });

  it('broad genre tags shared across the latent groups: no group name in any tag or title', () => {
    for (const w of worlds) {
      for (const v of w.videos) {
        expect(v.tags.filter((tag) => TOPIC_TAGS.some((t) => tag === t || tag.startsWith(`${t}-`)))).toEqual([]);
        expect(v.tags.some((tag) => GENRES.includes(tag))).toBe(true);
        expect(v.title).not.toContain(w.topicTags[v.topic]!);
      }
      for (const g of GENRES) expect(new Set(w.videos.filter((v) => v.tags.includes(g)).map((v) => v.topic)).size).toBeGreaterThan(2);
    }
  });

  it("each person's held-out like is their last in time, never liked, viewed or disliked before", () => {
    for (const w of worlds) {
      expect(w.crowd).toEqual([]);
      const seen = new Map<number, Set<number>>();
      const lastLike = new Map<number, number>();
      for (const e of w.events) {
        if (e.kind === 'publish' || e.kind === 'follow') continue;
        const mine = seen.get(e.actor.index) ?? new Set<number>();
        seen.set(e.actor.index, mine);
        for (const v of e.kind === 'view' ? e.videos : [e.video]) mine.add(v);
        if (e.kind === 'like') lastLike.set(e.actor.index, e.at);
      }
      w.users.forEach((u, i) => {
        expect(u.heldOut).toHaveLength(1);
        expect(seen.get(i)?.has(u.heldOut[0]!)).toBe(false);
        expect(u.liked).not.toContain(u.heldOut[0]);
        expect(u.heldOutAt![0]).toBeGreaterThanOrEqual(lastLike.get(i)!);
        expect(u.liked.length).toBeGreaterThanOrEqual(2);
      });
    }
  });

  it('views (opened, not liked) and dislikes, every reaction after its video was published', () => {
    for (const w of worlds) {
      const s = worldStatistics(w);
      expect(s.viewsPerPerson).toBeGreaterThan(5);
      expect(s.dislikesPerPerson).toBeGreaterThanOrEqual(1);
      const published = new Map<number, number>();
      const early: number[] = [];
      for (const e of w.events) {
        if (e.kind === 'publish') published.set(e.video, e.at);
        else if (e.kind !== 'follow') for (const v of e.kind === 'view' ? e.videos : [e.video]) if (!(published.get(v)! < e.at)) early.push(v);
      }
      expect(early).toEqual([]);
      expect(w.users.flatMap((u) => u.viewed.filter((v) => u.liked.includes(v)))).toEqual([]);
    }
  });
});

describe('thin-data worlds', () => {
  it('50-200 people with 3-15 likes each, planted topics with a topic tag on every video', () => {
    const thin = [...worldsOf('report', ['thin', 'thin-small']), ...worldsOf('tune', ['thin', 'thin-small']), QUICK_WORLDS.find((w) => w.thin)!];
    expect(thin.length).toBeGreaterThanOrEqual(5);
    for (const spec of thin) {
      const w = generateWorld(spec);
      const people = w.users.length + w.crowd.length;
      expect(people).toBeGreaterThanOrEqual(50);
      expect(people).toBeLessThanOrEqual(200);
      for (const n of [...w.users.map((u) => u.liked.length + u.heldOut.length), ...w.crowd.map((c) => c.liked.length)]) {
        expect(n).toBeGreaterThanOrEqual(3);
        expect(n).toBeLessThanOrEqual(15);
      }
      for (const v of w.videos) expect(v.tags[0]).toBe(w.topicTags[v.topic]);
    }
  });
});

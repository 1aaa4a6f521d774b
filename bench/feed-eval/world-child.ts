/**
 * One world of the feed's offline evaluation, in a process of its own (fresh config and tables in
 * the evaluation's DynamoDB Local): builds the world through the real operations (sign-up, the admin
 * role route, publish, like, dislike, views reported through get_next_list, follow) with the clock
 * pinned to each event's time, then asks the real get_next_list and the baselines, and writes the
 * figures to EVAL_RESULT_FILE. Started by run.ts.
 */
import { writeFileSync } from 'node:fs';
import { clock } from '../../lib/platform/clock.js';
import { mustSucceed, signUp, type Account } from '../fixtures.js';
import { bearer, hubRequest, invoke } from '../invoke.js';
import { costOf, installRecorder, recordDb } from '../recorder.js';
import { seededRandom } from '../../lib/platform/seeded-random.js';
import { alsScorer, easeScorer, itemKnnScorer, likeCounts, pageFor, pickCapped, popularityScorer, tuneAls, tuneEase, type Interactions, type Scorer } from './baselines.js';
import { evaluateSystem, mean, randomExpectation, topicPrecision, type Catalog, type SystemMetrics, type UserCase } from './metrics.js';
import { controlledWorld, DAY_MS, generateWorld, weightedSample, worldStatistics, type Actor, type WorldSpec, type WorldVideo } from './worlds.js';

const ADMIN_PHONE = '+8613800138000';
const K = 10;
const RANDOM_DRAWS = 200;

installRecorder();
const { seedFeedRandomness } = await import('./seeding.js');
// Likes move the trend, like_count, liked_count and co-likes through the table's stream (docs/data-model.md,
// "Counters"): the stream processor runs here as `npm start` runs it, and is settled before every
// get_next_list, since a deployed one lags by well under a second while the world's events are
// minutes apart.
const { startStreamPoller } = await import('../../local/stream-poller.js');
const { applyChangeRecords } = await import('../../lib/features/streams/counters.js');
const streams = await startStreamPoller({ endpoint: process.env.DYNAMODB_ENDPOINT!, table: process.env.HUB_TABLE!, apply: applyChangeRecords });
// The world's clock is pinned to each event's time, and events come closer than the 5 s a container
// keeps the feed's shared heads (docs/feed.md, "The shared heads' cache"), where deployed they are
// minutes apart: what the stream applied drops the kept heads, as that much real time would.
const { dropSharedHeads } = await import('../../lib/entities/catalog/shared-heads.js');
const settleStream = streams.settle.bind(streams);
streams.settle = async () => {
  await settleStream();
  dropSharedHeads();
};
const { refreshRecommendationModel } = await import('../../lib/features/recommend/model-refresh.js');

/**
 * The feed's learned model is refreshed once the stream has settled and before the feed is asked, as
 * its scheduled job would have run by then (docs/feed.md, "Offline evaluation"): what it returns,
 * with its time and the DynamoDB requests and capacity it used.
 */
async function refreshModel() {
  await streams.settle();
  const t0 = performance.now();
  const { result, requests } = await recordDb(() => refreshRecommendationModel());
  const { rcu, wcu } = costOf(requests);
  return { returned: result, seconds: Math.round((performance.now() - t0) / 100) / 10, requests: requests.length, rcu, wcu };
}

interface Feed {
  list: { vid: string; author: { openid: string } }[];
  fav_index: string;
}

const as = (a: Account) => ({ openid: a.openid, token: a.token });

/** The clock stands still at `ms` for the next operation. */
const at = (ms: number) => clock.set(ms);

async function signUpAt(ms: number, phone?: string): Promise<Account> {
  at(ms);
  return signUp(phone);
}

/** Publishing goes through POST /api/v1/videos with the author's JWT (stored role editor). */
async function publish(author: Account, video: Pick<WorldVideo, 'title' | 'description' | 'tags' | 'durationS' | 'key'>): Promise<string> {
  const data = await mustSucceed(
    {
      method: 'POST',
      path: '/api/v1/videos',
      headers: bearer(author.token),
      body: {
        title: video.title,
        description: video.description,
        video_url: `https://cdn.example.com/eval/${video.key}.mp4`,
        cover_url: `https://cdn.example.com/eval/${video.key}.jpg`,
        duration_s: video.durationS,
        tags: video.tags,
      },
    },
    201,
  );
  return String((data.video as { vid: string }).vid);
}

async function makeEditors(admin: Account, accounts: Account[]): Promise<void> {
  for (const a of accounts) await mustSucceed({ method: 'POST', path: `/api/v1/admin/users/${a.openid}/roles`, headers: bearer(admin.token), body: { roles: ['editor'] } });
}

/** Requests and write units of every feed call of a world (docs/feed.md, "Design rule"): rec's, and every mode's. */
const calls = { rec: [] as { requests: number; wcu: number }[], all: [] as { requests: number; wcu: number }[] };

async function feed(user: Account, params: Record<string, string | number>): Promise<{ vids: string[]; requests: number; wcu: number }> {
  await streams.settle();
  const { result, requests } = await recordDb(() => invoke(hubRequest('get_next_list', { ...as(user), ...params })));
  if (result.status !== 200) throw new Error(`get_next_list answered ${result.status}: ${JSON.stringify(result.body).slice(0, 200)}`);
  const cost = { requests: requests.length, wcu: costOf(requests).wcu };
  calls.all.push(cost);
  if (params.order === undefined && params.vid === undefined) calls.rec.push(cost);
  return { vids: (result.body.data as Feed).list.map((v) => v.vid), ...cost };
}

const spread = (xs: number[]) => ({ max: Math.max(0, ...xs), mean: mean(xs) });

// A world of the shape -------------------------------------------------------------------

async function runWorld(spec: WorldSpec) {
  const t0 = performance.now();
  const world = generateWorld(spec);
  seedFeedRandomness(spec.seed);
  const start = world.nowMs - (spec.days + 2) * DAY_MS;
  const admin = await signUpAt(start, ADMIN_PHONE);
  const authors: Account[] = [];
  for (let a = 0; a < world.authors.length; a++) authors.push(await signUpAt(start + a * 1000));
  at(start + 60_000);
  await makeEditors(admin, authors);
  const crowd: Account[] = [];
  for (let c = 0; c < world.crowd.length; c++) crowd.push(await signUpAt(start + 120_000 + c * 1000));
  const users: Account[] = [];
  for (let u = 0; u < world.users.length; u++) users.push(await signUpAt(world.nowMs - 15 * DAY_MS + u * 1000));

  console.log(`  ${authors.length + crowd.length + users.length + 1} accounts in ${Math.round((performance.now() - t0) / 1000)} s`);
  const vidOf: string[] = [];
  const accountOf = (actor: Actor) => (actor.group === 'user' ? users[actor.index]! : crowd[actor.index]!);
  const likes = new Array<number>(world.videos.length).fill(0);
  const counts = { publish: 0, like: 0, dislike: 0, view: 0, follow: 0 };
  for (const event of world.events) {
    at(event.at);
    counts[event.kind]++;
    switch (event.kind) {
      case 'publish':
        vidOf[event.video] = await publish(authors[world.videos[event.video]!.author]!, world.videos[event.video]!);
        break;
      case 'like':
        await mustSucceed(hubRequest('like', { ...as(accountOf(event.actor)), vid: vidOf[event.video]! }));
        likes[event.video]!++;
        break;
      case 'dislike':
        await mustSucceed(hubRequest('dislike', { ...as(accountOf(event.actor)), vid: vidOf[event.video]!, action: 'dislike' }));
        break;
      case 'view':
        await streams.settle();
        await mustSucceed(hubRequest('get_next_list', { ...as(accountOf(event.actor)), watch_count: 1, view_list: event.videos.map((v) => vidOf[v]!).join(',') }));
        break;
      case 'follow':
        await mustSucceed(hubRequest('follow_user', { ...as(accountOf(event.actor)), follow_user: authors[event.author]!.openid }));
        break;
    }
  }
  const buildSeconds = (performance.now() - t0) / 1000;
  console.log(`  built in ${Math.round(buildSeconds)} s: ${JSON.stringify(counts)}`);
  const modelAfterBuild = await refreshModel();
  console.log(`  model refreshed: ${JSON.stringify(modelAfterBuild)}`);

  const indexOf = new Map(vidOf.map((vid, i) => [vid, i]));
  const toIndexes = (vids: string[]) => vids.map((vid) => indexOf.get(vid) ?? -1);
  const catalog: Catalog = {
    size: world.videos.length,
    topicOf: (v) => (v >= 0 ? world.videos[v]!.topic : -1),
    authorOf: (v) => (v >= 0 ? world.videos[v]!.author : -1),
  };
  const caseOf = (u: number, list: number[]): UserCase => {
    const user = world.users[u]!;
    return { list, relevant: user.heldOut, favourites: user.favourites, liked: user.liked, disliked: user.disliked };
  };

  // The first page of each system, per user, at "now".
  const lists: Record<'feed' | 'popularity' | 'newest', UserCase[]> = { feed: [], popularity: [], newest: [] };
  for (let u = 0; u < users.length; u++) {
    at(world.nowMs + u * 1000);
    const rec = await feed(users[u]!, { cmd: 'refresh', watch_count: K });
    lists.feed.push(caseOf(u, toIndexes(rec.vids)));
    lists.popularity.push(caseOf(u, toIndexes((await feed(users[u]!, { order: 'hot', cmd: 'refresh', watch_count: K })).vids)));
    lists.newest.push(caseOf(u, toIndexes((await feed(users[u]!, { order: 'new', cmd: 'refresh', watch_count: K })).vids)));
  }

  // "More like this" on one of each user's liked videos in their topics.
  const rand = seededRandom(spec.seed * 7 + 1);
  const similar: number[] = [];
  const similarSources: { u: number; source: number }[] = [];
  for (let u = 0; u < users.length; u++) {
    const user = world.users[u]!;
    const onTopic = user.liked.filter((v) => user.favourites.includes(world.videos[v]!.topic));
    const pool = onTopic.length ? onTopic : user.liked;
    const source = pool[Math.floor(rand() * pool.length)]!;
    similarSources.push({ u, source });
    at(world.nowMs + 600_000 + u * 1000);
    const { vids } = await feed(users[u]!, { vid: vidOf[source]!, watch_count: K });
    const list = toIndexes(vids);
    if (list.includes(source)) throw new Error('more like this returned the video itself');
    similar.push(topicPrecision(list, [world.videos[source]!.topic], catalog.topicOf, K));
  }

  // Offline baselines over what each user has not liked, disliked or viewed.
  const eligibleOf = (u: number) => {
    const user = world.users[u]!;
    const excluded = new Set([...user.liked, ...user.disliked, ...user.viewed]);
    return world.videos.map((_, i) => i).filter((i) => !excluded.has(i));
  };
  const byLikes = (a: number, b: number) => likes[b]! - likes[a]! || world.videos[b]!.createdMs - world.videos[a]!.createdMs;
  const oracle = (u: number, cap: number) => {
    const user = world.users[u]!;
    const eligible = eligibleOf(u);
    const ranked = [...eligible.filter((i) => user.favourites.includes(world.videos[i]!.topic)).sort(byLikes), ...eligible.filter((i) => !user.favourites.includes(world.videos[i]!.topic)).sort(byLikes)];
    return pickCapped(ranked, catalog.authorOf, cap, K);
  };
  const planted = spec.generator !== 'latent';
  const oracleCases = users.map((_, u) => caseOf(u, oracle(u, Infinity)));
  // "More like this" has an achievable ceiling too: the most-liked unseen videos of the source's topic, at most 2 per author.
  const similarOracle = similarSources.map(({ u, source }) => {
    const topic = world.videos[source]!.topic;
    const eligible = eligibleOf(u).filter((i) => i !== source);
    const ranked = [...eligible.filter((i) => world.videos[i]!.topic === topic).sort(byLikes), ...eligible.filter((i) => world.videos[i]!.topic !== topic).sort(byLikes)];
    return topicPrecision(pickCapped(ranked, catalog.authorOf, 2, K), [topic], catalog.topicOf, K);
  });
  const oracleCappedCases = users.map((_, u) => caseOf(u, oracle(u, 2)));

  // Local baselines from the same training data: everything performed (likes in time order, views,
  // dislikes) by the evaluated people and the background accounts; EASE's and ALS's hyperparameters
  // chosen on a validation split of it (each evaluated person's last training like), never on the held-out likes.
  const train: Interactions = { videos: world.videos.length, people: [...world.users, ...world.crowd].map(() => ({ liked: [] as number[], viewed: [] as number[], disliked: [] as number[] })) };
  const personOf = (actor: Actor) => (actor.group === 'user' ? actor.index : world.users.length + actor.index);
  for (const e of world.events) {
    if (e.kind === 'like') train.people[personOf(e.actor)]!.liked.push(e.video);
    else if (e.kind === 'view') train.people[personOf(e.actor)]!.viewed.push(...e.videos);
    else if (e.kind === 'dislike') train.people[personOf(e.actor)]!.disliked.push(e.video);
  }
  const evaluated = users.map((_, u) => u);
  const tLocal = performance.now();
  const easeTuned = tuneEase(train, evaluated, catalog.authorOf);
  const alsTuned = tuneAls(train, evaluated, catalog.authorOf);
  const trainedLikes = likeCounts(train);
  const baselineCases = (scorer: Scorer) => users.map((_, u) => caseOf(u, pageFor(train, u, scorer, catalog.authorOf, trainedLikes, 2, K)));
  const popularityCases = baselineCases(popularityScorer(train));
  const knnCases = baselineCases(itemKnnScorer(train));
  const easeCases = baselineCases(easeScorer(train, easeTuned.params));
  const alsCases = baselineCases(alsScorer(train, alsTuned.params));
  const localSeconds = (performance.now() - tLocal) / 1000;
  console.log(`  local baselines in ${Math.round(localSeconds)} s: EASE ${JSON.stringify(easeTuned.params)}, ALS ${JSON.stringify(alsTuned.params)}`);
  const tuning = {
    ease: { params: easeTuned.params, validation: easeTuned.validation, configurations: easeTuned.grid.length, seconds: Math.round(easeTuned.seconds * 10) / 10 },
    als: { params: alsTuned.params, validation: alsTuned.validation, configurations: alsTuned.grid.length, seconds: Math.round(alsTuned.seconds * 10) / 10 },
    seconds: Math.round(localSeconds),
  };

  // Random: many draws per user, compared with the analytic expectation (a check of the metric code).
  const randomRuns: SystemMetrics[] = [];
  const randRandom = seededRandom(spec.seed * 13 + 5);
  for (let d = 0; d < RANDOM_DRAWS; d++) {
    randomRuns.push(evaluateSystem(users.map((_, u) => caseOf(u, weightedSample(randRandom, eligibleOf(u), () => 1, K))), catalog));
  }
  const averaged = (runs: SystemMetrics[]) => Object.fromEntries(Object.keys(runs[0]!).map((k) => [k, mean(runs.map((r) => r[k as keyof SystemMetrics]))])) as unknown as SystemMetrics;
  const expectations = users.map((_, u) => {
    const user = world.users[u]!;
    const eligible = eligibleOf(u);
    return randomExpectation(eligible.length, user.heldOut.length, eligible.filter((i) => user.favourites.includes(world.videos[i]!.topic)).length, K);
  });
  const randomExpected = { hr: mean(expectations.map((e) => e.hr)), recall: mean(expectations.map((e) => e.recall)), ndcg: mean(expectations.map((e) => e.ndcg)), topicPrecision: mean(expectations.map((e) => e.topicPrecision)) };
  const random = averaged(randomRuns);

  // Follow freshness: every author publishes one new video; each user who follows someone refreshes.
  const freshAt = world.nowMs + 3_600_000;
  const freshVid: string[] = [];
  for (let a = 0; a < authors.length; a++) {
    at(freshAt + a * 1000);
    const topic = world.authors[a]!.homeTopics[0]!;
    const title = world.spec.tagging === 'genres' ? `Expo news ${a}` : `${world.topicTags[topic]} news ${a}`;
    freshVid[a] = await publish(authors[a]!, { key: `fresh${a}`, title, description: 'Just published.', tags: [...world.freshTags[topic]!, world.dominantTag], durationS: 90 });
  }
  at(freshAt + authors.length * 1000);
  const modelAfterFreshness = await refreshModel();
  let freshPairs = 0;
  let freshHits = 0;
  let freshMissesCap = 0;
  for (let u = 0; u < users.length; u++) {
    const follows = world.users[u]!.follows;
    if (follows.length === 0) continue;
    at(freshAt + 3_600_000 + u * 1000);
    const { vids } = await feed(users[u]!, { cmd: 'refresh', watch_count: K });
    for (const a of follows) {
      freshPairs++;
      if (vids.includes(freshVid[a]!)) freshHits++;
      else if (vids.filter((vid) => authors[a]!.openid === vidAuthor(vid)).length >= 2) freshMissesCap++;
    }
  }
  function vidAuthor(vid: string): string | undefined {
    const i = indexOf.get(vid);
    if (i !== undefined) return authors[world.videos[i]!.author]!.openid;
    const a = freshVid.indexOf(vid);
    return a >= 0 ? authors[a]!.openid : undefined;
  }

  return {
    name: spec.name,
    spec,
    stats: {
      videos: world.videos.length,
      users: world.users.length,
      crowd: world.crowd.length,
      events: counts,
      likes: likes.reduce((s, n) => s + n, 0),
      dominantTagShare: world.videos.filter((v) => v.tags.includes(world.dominantTag)).length / world.videos.length,
      heldOut: world.users.reduce((s, u) => s + u.heldOut.length, 0),
      userLikes: spread(world.users.map((u) => u.liked.length)),
      people: world.users.length + world.crowd.length,
      eventCount: world.events.length,
      ...worldStatistics(world),
      buildSeconds: Math.round(buildSeconds),
    },
    model: { afterBuild: modelAfterBuild, afterFreshness: modelAfterFreshness },
    systems: {
      feed: evaluateSystem(lists.feed, catalog),
      popularity: evaluateSystem(lists.popularity, catalog),
      newest: evaluateSystem(lists.newest, catalog),
      popularityLocal: evaluateSystem(popularityCases, catalog),
      itemKnn: evaluateSystem(knnCases, catalog),
      ease: evaluateSystem(easeCases, catalog),
      als: evaluateSystem(alsCases, catalog),
      random,
      // The oracles know the planted topics: none in a latent world.
      ...(planted ? { oracle: evaluateSystem(oracleCases, catalog), oracleCapped: evaluateSystem(oracleCappedCases, catalog) } : {}),
    },
    tuning,
    randomExpected,
    moreLikeThis: { calls: similar.length, topicPrecision: mean(similar), oracleCapped: mean(similarOracle) },
    followFreshness: { pairs: freshPairs, hits: freshHits, rate: freshPairs ? freshHits / freshPairs : 0, missesWithAuthorCapFull: freshMissesCap },
    requests: spread(calls.rec.map((c) => c.requests)),
    wcu: spread(calls.rec.map((c) => c.wcu)),
    allModes: { requests: spread(calls.all.map((c) => c.requests)), wcu: spread(calls.all.map((c) => c.wcu)) },
  };
}

// The controlled 10 x 10 case --------------------------------------------------------------------

async function runControlled() {
  const world = controlledWorld();
  seedFeedRandomness(1010);
  const start = world.nowMs - 12 * DAY_MS;
  const admin = await signUpAt(start, ADMIN_PHONE);
  const authors: Account[] = [];
  for (let a = 0; a < world.authors.length; a++) authors.push(await signUpAt(start + a * 1000));
  at(start + 60_000);
  await makeEditors(admin, authors);
  const vidOf = new Map<string, WorldVideo>();
  for (const v of world.videos) {
    at(v.createdMs);
    vidOf.set(await publish(authors[v.author]!, v), v);
  }
  const rand = seededRandom(2020);
  const perTopic: { topic: string; inTopic: number; followed: boolean }[] = [];
  const users: Account[] = [];
  for (let t = 0; t < world.topicTags.length; t++) {
    const user = await signUpAt(world.nowMs - 3_600_000 + t * 1000);
    users.push(user);
    const topicVids = [...vidOf.entries()].filter(([, v]) => v.topic === t).map(([vid]) => vid);
    for (const vid of weightedSample(rand, topicVids, () => 1, 4)) {
      at(world.nowMs - 1_800_000 + t * 1000);
      await mustSucceed(hubRequest('like', { ...as(user), vid }));
    }
  }
  // Every like is in before the first question (all at now - 30 min): the model is refreshed once.
  const model = [await refreshModel()];
  for (let t = 0; t < users.length; t++) {
    const user = users[t]!;
    at(world.nowMs + t * 1000);
    const { vids } = await feed(user, { watch_count: K });
    perTopic.push({ topic: world.topicTags[t]!, inTopic: vids.filter((vid) => vidOf.get(vid)?.topic === t).length, followed: false });
  }
  // Follow freshness: user t follows author t, who then publishes; the user refreshes.
  for (let t = 0; t < users.length; t++) {
    const author = authors[t % authors.length]!;
    at(world.nowMs + 3_600_000 + t * 10_000);
    await mustSucceed(hubRequest('follow_user', { ...as(users[t]!), follow_user: author.openid }));
    at(world.nowMs + 3_600_000 + t * 10_000 + 1000);
    const fresh = await publish(author, { key: `cfresh${t}`, title: `news ${t}`, description: '', tags: [world.topicTags[(t + 3) % world.topicTags.length]!, 'expo'], durationS: 60 });
    at(world.nowMs + 3_600_000 + t * 10_000 + 2000);
    model.push(await refreshModel());
    const { vids } = await feed(users[t]!, { cmd: 'refresh', watch_count: K });
    perTopic[t]!.followed = vids.includes(fresh);
  }
  const counts = perTopic.map((p) => p.inTopic);
  return {
    perTopic,
    min: Math.min(...counts),
    mean: mean(counts),
    // 6 unseen videos of the topic among 96 unseen: a random 10 holds 10 * 6 / 96 of them.
    chance: (K * (world.videos.length / world.topicTags.length - 4)) / (world.videos.length - 4),
    followFreshness: perTopic.filter((p) => p.followed).length / perTopic.length,
    model: { refreshes: model.length, first: model[0], last: model.at(-1) },
    requests: spread(calls.rec.map((c) => c.requests)),
    wcu: spread(calls.rec.map((c) => c.wcu)),
  };
}

const which = process.env.EVAL_WORLD!;
const out = which === 'controlled' ? await runControlled() : await runWorld(JSON.parse(which) as WorldSpec);
writeFileSync(process.env.EVAL_RESULT_FILE!, `${JSON.stringify(out, null, 2)}\n`);
await streams.stop();
process.exit(0);

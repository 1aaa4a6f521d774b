import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { printTable } from '../format.js';
import { mustSucceed, signUp, signUpMany, type Account } from '../fixtures.js';
import { bearer, hubRequest, invoke } from '../invoke.js';
import { costOf, recordDb } from '../recorder.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';

/**
 * Hot items (docs/performance.md, "Hot items"): many accounts reacting at the same moment to one video, or to the videos
 * of one author, through the hub handler against DynamoDB Local, with the stream processor running
 * as `npm start` runs it. Per case: the answers that were not 200 (503s above all), whether every
 * count is exact once converged, and how long convergence took after the last answer.
 */
export interface HotCase {
  name: string;
  calls: number;
  /** Answers by status. */
  statuses: Record<string, number>;
  unavailable: number;
  exact: boolean;
  /** From the last answer until every derived count was exact (ms); -1 when it never was within the cap. */
  convergenceMs: number;
  wallMs: number;
  note: string;
}

export interface HotItemsResult {
  cases: HotCase[];
  firstLike: { requests: number; wcu: number; commands: string };
  commentPages: { page: number; requests: number }[];
}

const CONVERGENCE_CAP_MS = 120_000;

const stored = async <T>(key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: tableNames.hub, Key: key, ConsistentRead: true }))).Item as T | undefined;

async function untilTrue(check: () => Promise<boolean>): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < CONVERGENCE_CAP_MS) {
    if (await check()) return Math.round(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  return -1;
}

async function burst(name: string, requests: (() => ReturnType<typeof invoke>)[]) {
  const t0 = performance.now();
  const answers = await Promise.all(requests.map((r) => r()));
  const statuses: Record<string, number> = {};
  for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
  return { name, answers, statuses, unavailable: statuses['503'] ?? 0, wallMs: Math.round(performance.now() - t0) };
}

async function publish(editor: Account, title: string, tags: string[]): Promise<string> {
  const res = await invoke({
    method: 'POST',
    path: '/api/v1/videos',
    headers: bearer(editor.token),
    body: { title, description: 'hot items bench', video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 60, tags },
  });
  if (res.status !== 201) throw new Error(`publish: ${res.status} ${JSON.stringify(res.body)}`);
  return String(((res.body.data as { video: { vid: string } }).video).vid);
}

export async function hotItemsSection(options: { quick: boolean }): Promise<HotItemsResult> {
  const likers = options.quick ? 60 : 200;
  const commenters = 50;
  // ADMIN_PHONES (bench/environment.ts) makes this account an admin: it may publish.
  const editor = await signUp('+8613800138000');
  const people = await signUpMany(likers);
  const cases: HotCase[] = [];
  const as = (a: Account) => ({ openid: a.openid, token: a.token });

  // 50 comments on one video at once.
  const commented = await publish(editor, 'Comment storm', ['展会']);
  const comments = await burst(`${commenters} comment_set on one video`, people.slice(0, commenters).map((p, i) => () => invoke(hubRequest('comment_set', { ...as(p), vid: commented, content: `Comment ${i}` }))));
  const commentsConverged = await untilTrue(async () => (await stored<{ comment_count?: number }>(videoKeys.video(commented)))?.comment_count === commenters);
  const pages = [];
  const listed: string[] = [];
  for (const page of [1, 2, 3]) {
    const { result, requests } = await recordDb(() => invoke(hubRequest('comment_get', { ...as(editor), vid: commented, page, d: 'bench' })));
    const data = result.body.data as { list: { cid: string }[]; total: number };
    listed.push(...data.list.map((c) => c.cid));
    pages.push({ page, requests: requests.length, total: data.total });
  }
  const cids = comments.answers.map((a) => (a.body.data as { comment?: { cid: string } } | undefined)?.comment?.cid);
  cases.push({
    ...comments,
    calls: commenters,
    exact: commentsConverged >= 0 && pages.every((p) => p.total === commenters) && new Set(listed).size === commenters && cids.every((c) => c && listed.includes(c)),
    convergenceMs: commentsConverged,
    note: `comment_get pages 1-3 listed ${new Set(listed).size} distinct comments, total ${pages[0]!.total}`,
  });

  // Likes on one video at once.
  const author = await stored<{ liked_count?: number }>(accountKeys.account(editor.openid));
  let likedBefore = author?.liked_count ?? 0;
  const liked = await publish(editor, 'Like storm', ['机器人']);
  const oneVideo = await burst(`${likers} like on one video`, people.map((p) => () => invoke(hubRequest('like', { ...as(p), vid: liked }))));
  const oneVideoConverged = await untilTrue(
    async () =>
      (await stored<{ like_count?: number }>(videoKeys.video(liked)))?.like_count === likers &&
      (await stored<{ liked_count?: number }>(accountKeys.account(editor.openid)))?.liked_count === likedBefore + likers,
  );
  cases.push({ ...oneVideo, calls: likers, exact: oneVideoConverged >= 0, convergenceMs: oneVideoConverged, note: "video like_count and the author's liked_count" });

  // Likes spread over one author's videos at once.
  likedBefore += likers;
  const videos: string[] = [];
  for (let i = 0; i < 20; i++) videos.push(await publish(editor, `Catalog ${i}`, ['catalog']));
  const oneAuthor = await burst(`${likers} like over 20 videos of one author`, people.map((p, i) => () => invoke(hubRequest('like', { ...as(p), vid: videos[i % 20]! }))));
  const oneAuthorConverged = await untilTrue(async () => {
    if ((await stored<{ liked_count?: number }>(accountKeys.account(editor.openid)))?.liked_count !== likedBefore + likers) return false;
    const counts = await Promise.all(videos.map(async (v) => (await stored<{ like_count?: number }>(videoKeys.video(v)))?.like_count ?? 0));
    return counts.reduce((s, c) => s + c, 0) === likers;
  });
  cases.push({ ...oneAuthor, calls: likers, exact: oneAuthorConverged >= 0, convergenceMs: oneAuthorConverged, note: "every video's like_count and the author's liked_count" });

  // One first like, measured as the cost section measures it.
  const fresh = await publish(editor, 'First like', ['展会', 'robotics']);
  const { requests } = await recordDb(() => mustSucceed(hubRequest('like', { ...as(people[0]!), vid: fresh })));
  const cost = costOf(requests);

  printTable(
    'Hot items: concurrent reactions through the hub handler, stream processor running',
    ['case', 'calls', 'statuses', '503', 'exact', 'converged after (ms)', 'burst wall (ms)'],
    cases.map((c) => [c.name, c.calls, Object.entries(c.statuses).map(([s, n]) => `${s}: ${n}`).join(', '), c.unavailable, c.exact ? 'yes' : 'NO', c.convergenceMs, c.wallMs]),
  );
  console.log(`first like: ${cost.requests} requests (${cost.commands}), ${cost.wcu} WCU; comment_get pages 1-3: ${pages.map((p) => p.requests).join(', ')} requests`);
  return {
    cases: cases.map(({ answers: _answers, ...c }: HotCase & { answers?: unknown }) => c),
    firstLike: { requests: cost.requests, wcu: cost.wcu, commands: cost.commands },
    commentPages: pages.map(({ page, requests: n }) => ({ page, requests: n })),
  };
}

import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';


import { itemSizeBytes } from '../../bench/item-size.js';
import { clock } from '../../lib/platform/clock.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import type { CommentView } from '../../lib/entities/comments/comments.js';
import { applyChangeRecords, MAX_COMMENT_GAPS } from '../../lib/features/streams/counters.js';
import { getHubItem, hub, putTestAccounts, putTestVideo, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, settleStreams, startTestStack, type ApiResponse } from '../support/stack.js';
import { rateWindowKeys } from '../../lib/platform/limits/rate-windows.js';
import { commentKeys } from '../../lib/entities/comments/comments.js';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { accountKeys, personIdOf } from '../../lib/entities/accounts/accounts.js';

/**
 * Comment numbering under refused comments (docs/data-model.md, "Comment numbers"): a comment_set
 * refused for any reason (the per-minute limit, a retry of a comment being or already written, an
 * unknown video, bad input) takes no number, so the video's comment sequence item does not grow,
 * and every count agrees.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
/** Sends at once: the bursts are really parallel. */
let burst: ReturnType<typeof apiClient>;
let api: ReturnType<typeof apiClient>;
let accounts: TestAccount[];

beforeAll(async () => {
  // A small per-minute limit: each burst admits few comments and refuses the rest, so thousands of
  // refusals cost few accepted comments to list afterwards. The limit itself is tested in hub-social.
  stack = await startTestStack({ http: false, env: { RATE_COMMENTS_PER_MINUTE: '2' } });
  burst = apiClient(stack.url, { settle: false });
  api = apiClient(stack.url);
  accounts = await putTestAccounts(4);
});
afterAll(async () => stack?.stop());
afterEach(() => clock.reset());

type Posted = { comment: CommentView; comment_count: number };
type Page = { list: CommentView[]; total: number; has_more: boolean };
const post = (who: TestAccount, vid: string, content: string) => hub<Posted>(burst, 'comment_set', { openid: who.openid, token: who.token, vid, content });
/**
 * 503 answers: DynamoDB refused every try (a transaction conflict, likelier when the machine is
 * loaded). The number such a comment took is given back, or left as a gap when another comment took
 * the next one meanwhile (docs/data-model.md, "Comment numbers"): the only gaps the test allows.
 */
let unavailable = 0;
/** comment_set as a client sends it: a 503 is sent again (its Retry-After is the client's to honour) until answered otherwise. */
async function postAnswered(who: TestAccount, vid: string, content: string): Promise<ApiResponse<Posted>> {
  for (let tries = 1; ; tries++) {
    const res = await post(who, vid, content);
    if (res.status !== 503 || tries === 20) return res;
    unavailable++;
  }
}
const LIMIT = 2;
/**
 * Refused comments sent: 5,000 in the deep tier, fewer in `npm test` (vitest.config.ts sets
 * COMMENT_REFUSALS per project); both fail on numbering that takes a number for a refused comment.
 */
const REFUSALS = Number(process.env.COMMENT_REFUSALS ?? 5000);
/** The bound docs/data-model.md states for a sequence without gaps. */
const SEQUENCE_BYTES_WITHOUT_GAPS = 150;

/** A stored item as it is now (without waiting for the stream processor, which the windows do not concern). */
const rawItem = async <T,>(key: { pk: string; sk: string }) => (await db.send(new GetCommand({ TableName: tableNames.hub, Key: key, ConsistentRead: true }))).Item as T | undefined;

async function queryAll(pk: string, skPrefix: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(
      new QueryCommand({
        TableName: tableNames.hub,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
        ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((out.Items ?? []) as Record<string, unknown>[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

describe(`${REFUSALS} refused comments on one video`, () => {
  it('leave the comment sequence as the accepted comments alone made it, and every count exact', async () => {
    const video = await putTestVideo(accounts[0]!.openid);
    const accepted = new Map<string, string>(); // cid -> content
    let refused = 0;
    const statuses = new Map<number, number>();
    const count = (res: ApiResponse) => statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);

    let rounds = 0;
    for (let round = 0; refused < REFUSALS; round++, rounds++) {
      // A fresh minute: every account's window is empty, so the burst races to its first slots.
      clock.advance(60_000 - (clock.now() % 60_000) + 100);
      const window = `60s#${Math.floor(clock.now() / 60_000)}`;
      const calls: { who: TestAccount; content: string; res: Promise<ApiResponse<Posted>> }[] = [];
      for (const [i, who] of accounts.entries()) {
        // 30 different comments, 15 copies of one more (a client retrying a comment in a storm),
        // a blank one and one on an unknown video: at most LIMIT of them can be accepted.
        for (let j = 0; j < 30; j++) calls.push({ who, content: `r${round} a${i} c${j}`, res: postAnswered(who, video.vid, `r${round} a${i} c${j}`) });
        for (let j = 0; j < 15; j++) calls.push({ who, content: `r${round} a${i} storm`, res: postAnswered(who, video.vid, `r${round} a${i} storm`) });
        calls.push({ who, content: ' ', res: postAnswered(who, video.vid, ' ') });
        calls.push({ who, content: 'elsewhere', res: postAnswered(who, 'no-such-video', 'elsewhere') });
      }
      const answers = await Promise.all(calls.map(async (c) => ({ ...c, res: await c.res })));
      const newThisRound = new Map<string, { who: TestAccount; content: string }>();
      for (const { who, content, res } of answers) {
        count(res);
        expect([200, 400, 404, 429], JSON.stringify(res.body)).toContain(res.status);
        if (res.status === 200) {
          // Copies of one comment are answered with the same comment: new only the first time.
          expect(res.data.comment.content).toBe(content);
          if (!accepted.has(res.data.comment.cid)) newThisRound.set(res.data.comment.cid, { who, content });
          else refused++;
          accepted.set(res.data.comment.cid, content);
        } else {
          refused++;
        }
      }
      // One number per accepted comment so far, none for a refused one (a try answered 503 may have left a gap).
      const handedOut = (await rawItem<{ n: number }>(commentKeys.commentSequence(video.vid)))?.n ?? 0;
      expect(handedOut - accepted.size).toBeGreaterThanOrEqual(0);
      expect(handedOut - accepted.size, `numbers beyond the accepted comments, with ${unavailable} answers 503 so far`).toBeLessThanOrEqual(unavailable);
      for (const who of accounts) {
        const mine = [...newThisRound.values()].filter((c) => c.who === who).length;
        expect(mine).toBeLessThanOrEqual(LIMIT);
        // The window (the person's: docs/accounts.md, "The person id") counts the accepted comments
        // alone: a refused request gave back what it took.
        const person = personIdOf((await rawItem<{ phone: string }>(accountKeys.account(who.openid)))!.phone);
        expect((await rawItem<{ n: number }>(rateWindowKeys.rateWindow('comments-minute', person, window)))?.n ?? 0).toBe(mine);
      }
      // Retries of the comments just written: each answered with its comment, none new.
      const retries = await Promise.all([...newThisRound].flatMap(([cid, c]) => Array.from({ length: 3 }, async () => ({ cid, res: await postAnswered(c.who, video.vid, c.content) }))));
      for (const { cid, res } of retries) {
        count(res);
        expect(res.status).toBe(200);
        expect(res.data.comment.cid).toBe(cid);
        refused++;
      }
    }
    // Each round each account got at least one comment through, and the limit refused thousands.
    expect(accepted.size).toBeGreaterThanOrEqual(rounds * accounts.length);
    expect(statuses.get(429)).toBeGreaterThan(REFUSALS * 0.6);
    expect(statuses.get(400)).toBeGreaterThan(0);
    expect(statuses.get(404)).toBeGreaterThan(0);
    expect(statuses.get(500)).toBeUndefined();

    await settleStreams();
    // The sequence handed out exactly one number per accepted comment, and holds no gap but those
    // a 503 may have left (none on a quiet machine).
    const sequence = (await getHubItem<Record<string, unknown>>(commentKeys.commentSequence(video.vid)))!;
    const gaps = (sequence.gaps as Set<number> | undefined) ?? new Set<number>();
    expect(gaps.size, `${unavailable} answers 503`).toBeLessThanOrEqual(unavailable);
    expect(sequence.n).toBe(accepted.size + gaps.size);
    if (gaps.size === 0) expect(itemSizeBytes(sequence)).toBeLessThanOrEqual(SEQUENCE_BYTES_WITHOUT_GAPS);
    const numbered = await queryAll(videoKeys.video(video.vid).pk, 'COMMENT#');
    expect(numbered.filter((i) => i.entity !== 'comment' && !gaps.has(i.seq as number))).toEqual([]);
    expect(numbered.filter((i) => i.entity === 'comment').map((i) => i.seq)).toEqual(
      Array.from({ length: accepted.size + gaps.size }, (_, i) => i + 1).filter((seq) => !gaps.has(seq)),
    );
    // No reservation is left pending: every guard names its written comment.
    for (const who of accounts) {
      const guards = await queryAll(accountKeys.account(who.openid).pk, 'COMMENTDEDUP#');
      expect(guards.filter((g) => g.seq === undefined)).toEqual([]);
    }

    // comment_count == total == the comments the pages list, once each.
    expect((await getHubItem<{ comment_count: number }>(videoKeys.video(video.vid)))?.comment_count).toBe(accepted.size);
    const listed: string[] = [];
    for (let page = 1; ; page++) {
      const res = await hub<Page>(api, 'comment_get', { openid: accounts[1]!.openid, token: accounts[1]!.token, vid: video.vid, page, d: '' });
      expect(res.status).toBe(200);
      expect(res.data.total).toBe(accepted.size);
      listed.push(...res.data.list.map((c) => c.cid));
      if (!res.data.has_more) break;
    }
    expect(listed.sort()).toEqual([...accepted.keys()].sort());
  }, 400_000);
});

describe('a comment sequence holding as many gaps as it may', () => {
  it('records no further gap, and the rest of the batch still applies', async () => {
    const video = await putTestVideo(accounts[0]!.openid);
    const gaps = new Set(Array.from({ length: MAX_COMMENT_GAPS }, (_, i) => 2 * i + 2));
    const n = 2 * MAX_COMMENT_GAPS + 1;
    await db.send(new PutCommand({ TableName: tableNames.hub, Item: { ...commentKeys.commentSequence(video.vid), entity: 'comment_sequence', vid: video.vid, n, gaps } }));
    // Stream records as DynamoDB delivers them: one more gap marker, and a comment of the video.
    const record = (id: string, item: Record<string, unknown>, sequence: number) => ({
      eventID: `${id}-${video.vid}`,
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: String(sequence).padStart(21, '0'), NewImage: marshall(item) as Record<string, unknown> },
    });
    const outcome = await applyChangeRecords([
      record('gap', { ...commentKeys.comment(video.vid, n + 1), entity: 'comment_gap', vid: video.vid, seq: n + 1 }, 1),
      record('comment', { ...commentKeys.comment(video.vid, 1), entity: 'comment', vid: video.vid, seq: 1, cid: 'c_capped', openid: accounts[1]!.openid }, 2),
    ]);
    expect(outcome).toEqual({ applied: 2 });
    const sequence = (await rawItem<{ gaps: Set<number> }>(commentKeys.commentSequence(video.vid)))!;
    expect(sequence.gaps).toEqual(gaps);
    // The bound docs/data-model.md states: under 6 KB whatever the traffic.
    expect(itemSizeBytes(sequence)).toBeLessThan(6 * 1024);
    expect((await rawItem<{ comment_count: number }>(videoKeys.video(video.vid)))?.comment_count).toBe(1);
  });
});

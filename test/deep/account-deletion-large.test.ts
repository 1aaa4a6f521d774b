import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inParallel } from '../../lib/platform/db/batch.js';
import { personIdOf } from '../../lib/entities/accounts/accounts.js';
import { createKey } from '../../lib/features/keys/key-service.js';
import { hub, putTestAccounts, putTestVideo, signUp, type SignedUp, type TestAccount } from '../support/hub-fixtures.js';
import { apiClient, settleStreams, startTestStack } from '../support/stack.js';
import { allItems, counterMismatches } from '../support/store-digest.js';

/**
 * The account of docs/accounts.md's target, built through the operations: 10,000 likes, 2,000
 * follows each way, 1,000 comments and 50 keys (the videos and the accounts on the other side are
 * written as publishing and sign-up write them). It is deleted while others like, comment and follow
 * on the same videos and accounts; once the erasure ended and the stream converged, a scan of both
 * tables (in the test only) finds nothing of it but the retained items, and every counter it moved
 * equals a recount. How long it takes is `npm run bench -- --only deletion`'s to measure, not this test's.
 */
const SIZE = { likes: 10_000, follows: 2_000, followers: 2_000, comments: 1_000, keys: 50 };
/** Work-bounded: building and erasing this account is minutes of DynamoDB Local on 2 shared cores. */
const WHOLE_RUN_MS = 45 * 60_000;

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  stack = await startTestStack({ http: false, env: { RATE_COMMENTS_PER_MINUTE: '1000000' } });
  api = apiClient(stack.url);
});
afterAll(async () => stack?.stop());

const as = (u: { openid: string; token: string }) => ({ openid: u.openid, token: u.token });
const ok = async (call: Promise<{ status: number; body: unknown }>) => {
  const res = await call;
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
};


describe('deleting an account of the target size while others act', () => {
  it(
    'leaves only the retained items, every counter equal to a recount',
    async () => {
      const victim: SignedUp = await signUp(api);
      const [author] = await putTestAccounts(1, ['editor']);
      const videos: Awaited<ReturnType<typeof putTestVideo>>[] = [];
      await inParallel(Array.from({ length: SIZE.likes }, (_, i) => i), 16, async () => {
        videos.push(await putTestVideo(author!.openid));
      });
      const others: TestAccount[] = [];
      // In batches: one Promise.all of 4,000 puts would queue far past the client's 50 sockets.
      for (let left = SIZE.follows + SIZE.followers + 4; left > 0; left -= 200) others.push(...(await putTestAccounts(Math.min(200, left))));
      const followees = others.slice(0, SIZE.follows);
      const followers = others.slice(SIZE.follows, SIZE.follows + SIZE.followers);
      const crowd = others.slice(-4);
      await inParallel(videos, 8, (v) => ok(hub(api, 'like', { ...as(victim), vid: v.vid })));
      await inParallel(followees, 8, (f) => ok(hub(api, 'follow_user', { ...as(victim), follow_user: f.openid })));
      await inParallel(followers, 8, (f) => ok(hub(api, 'follow_user', { ...as(f), follow_user: victim.openid })));
      await inParallel(
        Array.from({ length: SIZE.comments }, (_, i) => i),
        8,
        (i) => ok(hub(api, 'comment_set', { ...as(victim), vid: videos[i % videos.length]!.vid, content: `Comment ${i}` })),
      );
      for (let i = 0; i < SIZE.keys; i++) await createKey(victim.openid, { name: `key ${i}` });
      await settleStreams();

      const deleted = await api.delete<{ deletion: { id: string; status_url: string } }>('/api/v1/me?confirm=delete', { token: victim.token });
      expect(deleted.status).toBe(202);
      // Others act on the same videos and accounts while the stream runs the erasure.
      await Promise.all([
        settleStreams(),
        inParallel(
          Array.from({ length: 40 }, (_, i) => i),
          4,
          async (i) => {
            const who = crowd[i % crowd.length]!;
            const vid = videos[(i * 97) % videos.length]!.vid;
            await ok(hub(api, 'like', { ...as(who), vid }));
            await ok(hub(api, 'comment_set', { ...as(who), vid, content: `during ${i}` }));
            await ok(hub(api, 'follow_user', { ...as(who), follow_user: followees[i]!.openid }));
          },
        ),
      ]);
      await settleStreams();
      expect((await api.get<{ deletion: { state: string } }>(deleted.data.deletion.status_url)).data.deletion.state).toBe('erased');

      const items = await allItems();
      const person = personIdOf(victim.phone);
      const left = items.filter(({ item }) => [victim.openid, victim.phone, person].some((s) => JSON.stringify(item).includes(s)));
      const retained = (item: Record<string, unknown>) =>
        item.pk === `DELETION#${deleted.data.deletion.id}` ||
        (item.pk === `ACCOUNT#${victim.openid}` && (item.entity === 'deleted_account' || (item.entity === 'audit_event' && String(item.type).startsWith('account.dele')))) ||
        String(item.pk).startsWith(`PHONE#${victim.phone}`) ||
        // Rate windows (the person's comment minute, SMS) expire on their own.
        String(item.pk).startsWith('RATE#');
      expect(left.filter(({ item }) => !retained(item)).map(({ table, item }) => `${table} ${String(item.pk)} ${String(item.sk)}`).slice(0, 20)).toEqual([]);

      // Recounts: every account's follows both ways and likes, every video's likes and comments.
      expect((await counterMismatches()).slice(0, 20)).toEqual([]);
    },
    WHOLE_RUN_MS,
  );
});

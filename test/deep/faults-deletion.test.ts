import { afterEach, describe, expect, it } from 'vitest';
import { getAccount } from '../../lib/entities/accounts/accounts.js';
import { getDeletion, requestDeletion } from '../../lib/features/deletion/deletion.js';
import { eraseSome } from '../../lib/features/deletion/erasure.js';
import { toAppError } from '../../lib/platform/error-mapper.js';
import { recordRequests } from '../support/db-requests.js';
import { planFaults, storeSnapshot, sweepFaults, wipeStore, type FaultSweep } from '../support/fault-sweep.js';
import { clearFaults, failAt } from '../support/faults.js';
import { getHubItem, hub, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { reportKeys } from '../../lib/features/report/reports.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { settleStreams, useTestStack } from '../support/stack.js';

/**
 * Account deletion under DynamoDB faults (docs/accounts.md): the request answers 503 with nothing
 * changed and its retry deletes once; every request of an erasure run failing once leaves the
 * account as invisible as before (a run's pages are idempotent: what it did stays done), and the
 * erasure then completes once: the same end state, no count above the run without faults, one
 * `account.deleted` event.
 */
const api = useTestStack();
afterEach(clearFaults);

interface Case {
  victim: SignedUp;
  others: SignedUp[];
  vid: string;
}

/** An account with a little of everything an erasure touches, the derived counters settled. */
async function setup(): Promise<Case> {
  const admin = await signUp(api, ADMIN_PHONE);
  const [victim, a, b] = [await signUp(api), await signUp(api), await signUp(api)];
  expect((await api.post(`/api/v1/admin/users/${a!.openid}/roles`, { token: admin.token, body: { roles: ['editor'] } })).status).toBe(200);
  const published = await api.post<{ video: { vid: string } }>('/api/v1/videos', {
    token: a!.token,
    body: { title: 'Hall', video_url: 'https://cdn.example.com/h.mp4', cover_url: 'https://cdn.example.com/h.jpg', duration_s: 30, tags: ['expo'] },
  });
  const vid = published.data.video.vid;
  const as = (u: SignedUp) => ({ openid: u.openid, token: u.token });
  for (const [op, params] of [
    ['like', { ...as(victim!), vid }],
    ['comment_set', { ...as(victim!), vid, content: 'hello' }],
    ['follow_user', { ...as(victim!), follow_user: a!.openid }],
    ['follow_user', { ...as(b!), follow_user: victim!.openid }],
    // Two open reports of one case: the victim's is erased, its case's counts following (docs/moderation.md, "Reports").
    ['report', { ...as(victim!), target: 'user', id: a!.openid, reason: 'spam' }],
    ['report', { ...as(b!), target: 'user', id: a!.openid, reason: 'abusive' }],
  ] as const) {
    expect((await hub(api, op, params)).status).toBe(200);
  }
  expect((await api.post('/api/v1/api-keys', { token: victim!.token, body: { name: 'k' } })).status).toBe(201);
  await settleStreams();
  return { victim: victim!, others: [a!, b!], vid };
}

/** The end state an erasure must reach, whatever failed on the way. */
async function expectErased(c: Case, deletionId: string, erased: Record<string, number> | undefined) {
  await settleStreams();
  const deletion = await getDeletion(deletionId);
  expect(deletion?.state).toBe('erased');
  // Counted by the runs that removed something: a page redone after a failure finds it gone and
  // counts nothing, so a failure may lower a count, never raise it.
  if (erased) for (const [kind, n] of Object.entries(deletion?.erased ?? {})) expect(n, kind).toBeLessThanOrEqual(erased[kind] ?? 0);
  const account = await getAccount(c.victim.openid, true);
  expect(Object.keys(account ?? {}).sort()).toEqual(['deleted_at', 'deletion_id', 'entity', 'openid', 'pk', 'sk', 'ttl']);
  const [a, b] = [await getAccount(c.others[0]!.openid, true), await getAccount(c.others[1]!.openid, true)];
  expect([a?.follower_count, a?.liked_count, b?.follow_count]).toEqual([0, 0, 0]);
  const store = [...(await storeSnapshot()).entries()];
  const events = store.filter(([key, json]) => key.startsWith(`hub ACCOUNT#${c.victim.openid} | AUDIT#`) && json.includes('"account.deleted"'));
  expect(events).toHaveLength(1);
  expect(store.filter(([key]) => key.startsWith(`hub ACCOUNT#${c.victim.openid} | `) && !key.includes('| AUDIT#') && !key.endsWith('| PROFILE'))).toEqual([]);
  // The victim's report is gone and counted out of its case exactly once; b's stays.
  expect(store.filter(([key]) => key.includes(`| REPORT#${c.victim.openid}#`))).toEqual([]);
  const reportCase = await getHubItem(reportKeys.case('user', c.others[0]!.openid));
  expect(reportCase).toMatchObject({ open_count: 1, r_spam: 0, r_abusive: 1 });
}

describe('the deletion request under DynamoDB faults', () => {
  const sweep: FaultSweep<Case> = {
    setup,
    call: ({ victim }) => api.delete('/api/v1/me?confirm=delete', { token: victim.token }),
    status: 202,
    async once({ victim }, res) {
      const { deletion } = res.data as { deletion: { id: string } };
      const account = await getAccount(victim.openid, true);
      expect(account?.deletion_id).toBe(deletion.id);
      expect((await api.get('/api/v1/me', { token: victim.token })).status).toBe(401);
      const store = [...(await storeSnapshot()).keys()];
      expect(store.filter((key) => key.startsWith('hub DELETION#'))).toEqual([`hub DELETION#${deletion.id} | DELETION`]);
    },
  };

  it('503 with nothing changed; the retry deletes once', async () => {
    // The session check, the account, the keys (for their marks), then one transaction.
    expect((await sweepFaults(sweep)).requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'QueryCommand', 'TransactWriteItemsCommand']);
  });
});

describe('the erasure under DynamoDB faults', () => {
  it('a run failing at any request leaves what it did done, and the erasure completes once', async () => {
    await wipeStore();
    const counting = await setup();
    const { deletion } = await requestDeletion({ openid: counting.victim.openid, actor: 'self', via: 'rest' });
    // One run does it all (the page budget is far above what this account needs).
    const { result, requests } = await recordRequests(() => eraseSome(deletion.id, 1000), { includeFailed: true });
    expect(result).toBe('erased');
    const erased = (await getDeletion(deletion.id))!.erased;
    expect(erased).toMatchObject({ follows: 1, followers: 1, like: 1, comments: 1, reports: 1, keys: 1 });
    await expectErased(counting, deletion.id, erased);

    const plan = planFaults(requests);
    expect(plan.length).toBeGreaterThan(requests.length);
    for (const planned of plan) {
      const label = `${planned.kind} at request ${planned.position} (${planned.request.command})`;
      await wipeStore();
      const c = await setup();
      const { deletion: d } = await requestDeletion({ openid: c.victim.openid, actor: 'self', via: 'rest' });
      const fault = failAt(planned.n, planned.kind);
      const outcome = await eraseSome(d.id, 1000).then(
        (state) => state,
        (error: unknown) => error,
      );
      clearFaults();
      expect(fault.fired, `${label}: the fault fired on the planned request`).toBe(planned.request.command);
      if (typeof outcome !== 'string') {
        // A failed run is a dependency failure (retried by the stream), never a bug.
        expect(toAppError(outcome)?.status, `${label}: ${String(outcome)}`).toBe(503);
      }
      // Still refused everywhere while erasing: nothing of it is visible again.
      expect((await api.get('/api/v1/me', { token: c.victim.token })).status, label).toBe(401);
      // The stream hands the record over again: the erasure goes on from where it was.
      await expectErased(c, d.id, erased);
    }
    // A bound, not a measure: one setup and erasure per planned fault (every request of the run, its writes twice).
  }, 600_000);

});

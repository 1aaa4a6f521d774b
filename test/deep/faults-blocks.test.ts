import { describe, expect, it } from 'vitest';
import { retryAfterLostAnswer, sweepFaults, type FaultSweep } from '../support/fault-sweep.js';
import { getHubItem, hub, putTestAccounts } from '../support/hub-fixtures.js';
import { useTestStack } from '../support/stack.js';
import { accountKeys, personIdOf } from '../../lib/entities/accounts/accounts.js';
import { followKeys } from '../../lib/entities/social/follows.js';
import { blockKeys } from '../../lib/entities/social/block-items.js';

/**
 * block_user and unblock_user with each of their DynamoDB requests failing in turn (the plan and
 * the checks: test/support/fault-sweep.ts): 503 with nothing half-written (the block list, its
 * reverse item, both follows and both accounts' counters change in one transaction), and the retry
 * does everything once (docs/moderation.md, "Blocking").
 */
const api = useTestStack({ settle: true });

type User = { openid: string; token: string };
interface Pair {
  a: User;
  b: User;
}

/** Two accounts following each other: the block ends both follows. */
async function followingPair(): Promise<Pair> {
  const [a, b] = await putTestAccounts(2);
  if (!a || !b) throw new Error('two accounts');
  expect((await hub(api, 'follow_user', { openid: a.openid, token: a.token, follow_user: b.openid })).status).toBe(200);
  expect((await hub(api, 'follow_user', { openid: b.openid, token: b.token, follow_user: a.openid })).status).toBe(200);
  return { a, b };
}

const counts = async (openid: string) => getHubItem<Record<string, unknown>>(accountKeys.account(openid));
const personOfAccount = async (openid: string) => personIdOf(String((await counts(openid))!.phone));

const blockSweep: FaultSweep<Pair> = {
  setup: followingPair,
  call: ({ a, b }) => hub(api, 'block_user', { openid: a.openid, token: a.token, block_user: b.openid }),
  async once({ a, b }, res) {
    expect(res.data).toEqual({ block_user: b.openid, blocked: true });
    const list = await getHubItem<{ blocked: Record<string, string> }>(blockKeys.blockList(a.openid));
    expect(Object.keys(list!.blocked)).toEqual([b.openid]);
    expect(await getHubItem(blockKeys.blockedBy(b.openid, a.openid))).toMatchObject({ blocker: a.openid, blocked: b.openid });
    expect(await getHubItem(blockKeys.personBlockedBy(await personOfAccount(b.openid), a.openid))).toMatchObject({ blocker: a.openid, blocked: b.openid });
    for (const key of [followKeys.follows(a.openid, b.openid), followKeys.followedBy(b.openid, a.openid), followKeys.follows(b.openid, a.openid), followKeys.followedBy(a.openid, b.openid)]) {
      expect(await getHubItem(key)).toBeUndefined();
    }
    for (const openid of [a.openid, b.openid]) expect(await counts(openid)).toMatchObject({ follow_count: 0, follower_count: 0 });
  },
};

const unblockSweep: FaultSweep<Pair> = {
  async setup() {
    const [a, b] = await putTestAccounts(2);
    if (!a || !b) throw new Error('two accounts');
    expect((await hub(api, 'block_user', { openid: a.openid, token: a.token, block_user: b.openid })).status).toBe(200);
    return { a, b };
  },
  call: ({ a, b }) => hub(api, 'unblock_user', { openid: a.openid, token: a.token, block_user: b.openid }),
  async once({ a, b }, res) {
    expect(res.data).toEqual({ block_user: b.openid, blocked: false });
    expect(await getHubItem(blockKeys.blockList(a.openid))).toBeUndefined();
    expect(await getHubItem(blockKeys.blockedBy(b.openid, a.openid))).toBeUndefined();
    expect(await getHubItem(blockKeys.personBlockedBy(await personOfAccount(b.openid), a.openid))).toBeUndefined();
  },
};

describe('block_user and unblock_user under DynamoDB faults', () => {
  it('block_user: 503 with no block and both follows kept; the retry blocks once and ends them, counts exact', async () => {
    const report = await sweepFaults(blockSweep);
    // The token's check, the target account, the list and both follows (in parallel), the one transaction.
    expect(report.requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'GetItemCommand', 'GetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  it('unblock_user: 503 with the block kept; the retry unblocks once', async () => {
    const report = await sweepFaults(unblockSweep);
    // The token's check, the list (the account is read only when the list does not hold it), the one transaction.
    expect(report.requests).toEqual(['BatchGetItemCommand', 'GetItemCommand', 'TransactWriteItemsCommand']);
  });

  it.each([
    ['block_user', blockSweep],
    ['unblock_user', unblockSweep],
  ] as [string, FaultSweep<unknown>][])('%s: the answer of its transaction lost, the retry does nothing twice', async (_name, sweep) => {
    await retryAfterLostAnswer(sweep);
  });
});

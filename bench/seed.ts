import { randomBytes } from 'node:crypto';
import { BatchWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableNames } from '../lib/platform/db/client.js';
import { pad } from '../lib/platform/db/keys.js';
import { accountItem, accountRecord, type Account } from '../lib/entities/accounts/accounts.js';
import { commentItem, type StoredComment } from '../lib/entities/comments/comments.js';
import { relationItems } from '../lib/entities/social/follows.js';
import { KEY_PREFIX } from '../lib/features/keys/key-material.js';
import type { StoredKey } from '../lib/features/keys/key-record.js';
import { hashGuardItem, keyRecordItem, keyRecordKeys } from '../lib/features/keys/key-records.js';
import { commentKeys } from '../lib/entities/comments/comments.js';
import { videoKeys } from '../lib/entities/catalog/video-items.js';
import { accountKeys } from '../lib/entities/accounts/accounts.js';

/**
 * Bulk seeding for the scaling section: BatchWriteItem, 25 items per request, several requests in
 * flight, unprocessed items retried. Items are built with the entity modules' key builders
 * and lib/features/keys/key-records.ts in the shapes the stores write (named at each builder below).
 */
export async function batchWrite(table: string, items: Record<string, unknown>[], concurrency = 8): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const start = next;
      next += 25;
      if (start >= items.length) return;
      let pending: { PutRequest: { Item: Record<string, unknown> } }[] = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; pending.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
        const out = await db.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
        pending = (out.UnprocessedItems?.[table] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** `count` accounts as sign-up writes them (no phone link: nothing here signs in by phone), named `<prefix>_<n>`. */
export async function seedAccounts(prefix: string, count: number): Promise<string[]> {
  const openids = Array.from({ length: count }, (_, i) => `${prefix}_${pad(i, 6)}`);
  const at = new Date().toISOString();
  await batchWrite(tableNames.hub, openids.map((openid, i) => benchAccount(openid, i, at)));
  return openids;
}

/** An account item as sign-up writes it (accountRecord/accountItem of lib/entities/accounts/accounts.ts), without a phone link (not read here). */
function benchAccount(openid: string, index: number, createdAt: string, overrides: Partial<Account> = {}) {
  const record = accountRecord({ openid, phone: `+86137${String(index).padStart(8, '0')}`, nickname: `bench ${openid.slice(-6)}`, created_at: createdAt });
  return accountItem({ ...record, ...overrides });
}

/**
 * `count` new accounts following `followee`, numbered 1..count on the followee's side, with both
 * relation items as follow() writes them (lib/entities/social/follows.ts) and the counters it keeps.
 */
export async function seedFollowers(followee: string, count: number): Promise<void> {
  const base = Date.parse('2025-01-01T00:00:00.000Z');
  const items: Record<string, unknown>[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const follower = `sf_${followee.slice(-6)}_${pad(seq, 6)}`;
    const at = new Date(base + seq * 1000).toISOString();
    items.push(benchAccount(follower, seq, at, { follow_count: 1, follow_seq: 1 }));
    items.push(...relationItems(follower, followee, at, 1, seq));
  }
  await batchWrite(tableNames.hub, items);
  await db.send(
    new UpdateCommand({
      TableName: tableNames.hub,
      Key: accountKeys.account(followee),
      UpdateExpression: 'SET follower_count = :n, follower_seq = :n',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':n': count },
    }),
  );
}

/**
 * `count` comments on `vid`, numbered 1..count as comment_set numbers them (lib/entities/comments/post-comment.ts),
 * with the video's comment sequence at `count` and its `comment_count` as the stream sets it.
 */
export async function seedComments(vid: string, count: number, authors: { openid: string; nickname: string }[]): Promise<void> {
  const base = Date.parse('2025-06-01T00:00:00.000Z');
  const items: Record<string, unknown>[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const author = authors[seq % authors.length]!;
    const createdAt = new Date(base + seq * 1000).toISOString();
    const comment: StoredComment = { cid: `c_bench${pad(seq, 9)}`, vid, seq, openid: author.openid, nickname: author.nickname, content: `Comment number ${seq} on a busy video`, created_at: createdAt };
    items.push(commentItem(comment));
  }
  for (const author of authors) {
    const at = new Date(base + count * 1000).toISOString();
    items.push({ ...commentKeys.commented(author.openid, vid), ...commentKeys.commentedIndex(author.openid, at, vid), entity: 'commented', openid: author.openid, vid, commented_at: at });
  }
  items.push({ ...commentKeys.commentSequence(vid), entity: 'comment_sequence', vid, n: count });
  await batchWrite(tableNames.hub, items);
  await db.send(
    new UpdateCommand({
      TableName: tableNames.hub,
      Key: videoKeys.video(vid),
      UpdateExpression: 'SET comment_count = :n',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':n': count },
    }),
  );
}

/**
 * `users * perUser` access keys as insertKey writes them (lib/features/keys/key-records.ts): the record with
 * key_hash (the GSI entry), its hash guard, and the user's quota counter. Ids start at `firstId`
 * (above the id sequence in use, so nothing collides). Plaintexts are not needed: nobody verifies them.
 */
export async function seedKeys(users: number, perUser: number, firstId: number): Promise<void> {
  const items: Record<string, unknown>[] = [];
  const nowIso = new Date().toISOString();
  let id = firstId;
  for (let u = 0; u < users; u++) {
    const userId = `sk_user_${pad(u, 6)}`;
    for (let k = 0; k < perUser; k++, id++) {
      const key: StoredKey = {
        id,
        name: `seeded ${k}`,
        key_prefix: KEY_PREFIX,
        user_id: userId,
        scopes: [],
        expires_at: null,
        last_used_at: null,
        is_active: true,
        created_at: nowIso,
        updated_at: nowIso,
        key_hash: randomBytes(32).toString('hex'),
      };
      items.push(keyRecordItem(key), hashGuardItem(key));
    }
    items.push({ ...keyRecordKeys.quota(userId), n: perUser });
  }
  await batchWrite(tableNames.apiKeys, items);
}

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient, ExpohubError, memorySession, type ExpohubClient } from '../../client/src/index.js';
import { newNonce, newPhone, putTestAccounts, putTestVideo } from '../support/hub-fixtures.js';
import { startTestStack } from '../support/stack.js';

/**
 * @expohub/client (client/src/index.ts) against the local runtime: a person's whole day (sign in with
 * the SMS code from the local outbox, feed pages, like, comment, delete the comment, report, block,
 * export, delete the account) and a script's access key through its life.
 */
let stack: Awaited<ReturnType<typeof startTestStack>>;
let author: string;

beforeAll(async () => {
  stack = await startTestStack();
  author = (await putTestAccounts(1))[0]!.openid;
  for (let i = 0; i < 5; i++) await putTestVideo(author, { title: `Booth ${i}` });
});
afterAll(async () => {
  await stack?.stop();
});

/** The newest code the local SMS channel holds for a phone (`GET /_dev/sms`, local only). */
async function smsCode(phone: string): Promise<string> {
  const res = await fetch(`${stack.url}/_dev/sms?phone=${encodeURIComponent(phone)}`);
  const body = (await res.json()) as { data: { messages: { code: string }[] } };
  return body.data.messages[0]!.code;
}

async function signIn(client: ExpohubClient): Promise<{ openid: string; token: string }> {
  const phone = newPhone();
  const nonce = newNonce();
  await client.auth.requestCode({ phonenumber: phone, nonce });
  return client.auth.signIn({ openid: phone, token: nonce, code: await smsCode(phone) });
}

describe('@expohub/client on the local runtime', () => {
  it("runs a person's whole day", async () => {
    const ended = vi.fn();
    const store = memorySession();
    const client = createClient({ baseUrl: stack.url, session: store, onSessionEnded: ended });
    const me = await signIn(client);
    expect(await store.get()).toMatchObject({ openid: me.openid, token: me.token });

    const pages = [];
    for await (const page of client.feed.nextPages({ order: 'new', watch_count: 2 })) {
      pages.push(page.list.map((v) => v.vid));
      if (pages.length === 2) break;
    }
    expect(pages.flat()).toHaveLength(4);
    expect(new Set(pages.flat()).size).toBe(4);
    const vid = pages[0]![0]!;

    expect(await client.videos.like({ vid })).toMatchObject({ vid, liked: true });
    const { comment } = await client.comments.post({ vid, content: 'Great booth!' });
    const listed = await client.comments.list({ vid, page: 1 });
    expect(listed.list.map((c) => c.cid)).toContain(comment.cid);
    expect(await client.comments.delete({ vid, cid: comment.cid })).toMatchObject({ comment: { cid: comment.cid, content: '' }, deleted: true });
    // A deleted comment keeps its place in the list, emptied (docs/hub-api.md, "comment_delete").
    expect((await client.comments.list({ vid, page: 1 })).list.find((c) => c.cid === comment.cid)).toMatchObject({ content: '' });

    expect(await client.safety.report({ target: 'video', id: vid, reason: 'spam' })).toHaveProperty('report');
    expect(await client.safety.block({ block_user: author })).toMatchObject({ block_user: author });

    const records: string[] = [];
    for await (const page of client.me.exportDataPages()) records.push(...page.records.map((r) => r.type));
    expect(records).toEqual(expect.arrayContaining(['like', 'report', 'block']));

    const wrong = await client.videos.get({ vid: '' }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ExpohubError);
    expect(wrong).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', field: 'vid', requestId: expect.any(String) });

    const held = await store.get();
    await client.me.deleteAccount({ confirm: 'delete' });
    expect(await store.get()).toBeNull();
    // A device that still holds the ended session is told so, and its store is cleared.
    const stale = createClient({ baseUrl: stack.url, session: memorySession(held), onSessionEnded: ended });
    await expect(stale.me.lists({ next_id: 0, fav_index: 0 })).rejects.toMatchObject({ status: 401, code: 'AUTH_ERROR' });
    expect(ended).toHaveBeenCalledTimes(1);
    expect(await stale.session.get()).toBeNull();
  });

  it("runs a script's access key through its life", async () => {
    const owner = createClient({ baseUrl: stack.url });
    const me = await signIn(owner);
    const created = await owner.keys.create({ name: 'nightly export', scopes: ['export:read'] });
    expect(created.key).toMatchObject({ name: 'nightly export', status: 'valid' });

    const script = createClient({ baseUrl: stack.url, accessKey: created.api_key });
    expect(await script.me.get()).toMatchObject({ user_id: me.openid, auth_type: 'api_key' });
    const rows = [];
    for await (const page of script.exports.commentsPages({ limit: 100 })) rows.push(...page.items);
    expect(rows).toEqual([]);
    expect(await owner.keys.verify({ key: created.api_key })).toMatchObject({ user_id: me.openid, valid: true });
    expect((await owner.keys.list()).map((k) => k.id)).toContain(created.key.id);
    expect(await owner.keys.usage({ id: created.key.id })).toHaveProperty('days');

    await owner.keys.revoke({ id: created.key.id });
    await expect(script.me.get()).rejects.toMatchObject({ status: 401, code: 'AUTH_ERROR' });
    await owner.keys.delete({ id: created.key.id });
    expect((await owner.keys.list()).map((k) => k.id)).not.toContain(created.key.id);
  });
});

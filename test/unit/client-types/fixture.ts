/* Compiled with tsc --strict by test/unit/client-types.test.ts: each @ts-expect-error must be an error. */
import { createClient, type FeedNextData } from '../../../client/src/index.js';

export async function flow(baseUrl: string): Promise<FeedNextData> {
  const client = createClient({ baseUrl });
  await client.auth.requestCode({ phonenumber: '+8613800138000', nonce: 'device-nonce-1' });
  const signed = await client.auth.signIn({ openid: '+8613800138000', token: 'device-nonce-1', code: '123456' });
  const openid: string = signed.openid;
  const page = await client.feed.next({ order: 'new', watch_count: 5 });
  const vid: string | undefined = page.list[0]?.vid;
  if (vid) await client.comments.post({ vid, content: 'Great booth!' });
  const keys = await client.keys.create({ name: 'ci', scopes: ['export:read'] });
  void keys.key;
  for await (const p of client.exports.commentsPages({ limit: 100 })) void p.items;

  // @ts-expect-error a wrong parameter: `order` is rec, hot or new
  await client.feed.next({ order: 'oldest' });
  // @ts-expect-error a misspelled parameter
  await client.feed.next({ watchcount: 5 });
  // @ts-expect-error a required parameter left out (comment_set needs content)
  await client.comments.post({ vid: 'v_1' });
  // @ts-expect-error a misspelled method
  await client.feed.nxt({});
  // @ts-expect-error a misspelled group
  await client.comment.list({ vid: 'v_1' });
  // @ts-expect-error an answer's field that does not exist
  void page.items;
  // @ts-expect-error a route that takes no parameters
  await client.keys.list({ user_id: openid });
  // @ts-expect-error a list that is not paged has no iterator
  client.videos.getPages({ vid: 'v_1' });
  return page;
}

/**
 * A client as an integrator writes one (docs/testing.md, "The conformance test"): openapi-fetch with
 * its defaults, no setting at all (docs/hub-api.md, "The OpenAPI document"), typed by
 * openapi-typescript's output for the served document (its defaults too). test/e2e/typed-client.test.ts compiles it with
 * `tsc --strict` next to types generated from `GET /api/v1/openapi.json` (./api-types.ts, written
 * into the test's scratch folder; the repository's own tsc leaves this folder out, tsconfig.json), then runs it against the
 * server: `node flow.ts <base URL>` prints what it did as JSON. No casts: every value is narrowed.
 */
import createClient from 'openapi-fetch';
import type { paths } from './api-types.js';

const baseUrl = process.argv[2];
if (!baseUrl) throw new Error('usage: flow.ts <base URL>');
const client = createClient<paths>({ baseUrl });

function failed(what: string, error: unknown): never {
  throw new Error(`${what} failed: ${JSON.stringify(error)}`);
}

// Sign-up: a code by SMS (the local outbox stands in for the phone), then the account.
const phone = `+86139${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
const nonce = `typed-client-${Date.now()}`;
const sent = await client.GET('/api/v1', { params: { query: { do: 'gen_code', phonenumber: phone, nonce } } });
if (!sent.data) failed('gen_code', sent.error);
const outbox: unknown = await (await fetch(`${baseUrl}/_dev/sms?phone=${encodeURIComponent(phone)}`)).json();
const code = typeof outbox === 'object' && outbox !== null && 'data' in outbox ? JSON.stringify(outbox.data).match(/"code":"(\d{6})"/)?.[1] : undefined;
if (!code) failed('reading the SMS outbox', outbox);
const signedUp = await client.GET('/api/v1', { params: { query: { do: 'create_phone_account', openid: phone, token: nonce, code, openid0: '', token0: '' } } });
if (!signedUp.data) failed('create_phone_account', signedUp.error);
const account = signedUp.data.data;
if (!('new_account' in account)) failed('create_phone_account (answer)', account);
const { openid, token } = account;

// The anonymous feed (an empty token is as if absent), the person's feed, and a like of its first video.
const guest = await client.GET('/api/v1', { params: { query: { do: 'get_next_list', openid: 'guest', token: '', watch_count: 2 } } });
if (!guest.data) failed('get_next_list (anonymous)', guest.error);
const guestPage = guest.data.data;
if (!('fav_index' in guestPage)) failed('get_next_list (anonymous answer)', guestPage);
const feed = await client.GET('/api/v1', { params: { query: { do: 'get_next_list', openid, token, order: 'new', watch_count: 3 } } });
if (!feed.data) failed('get_next_list', feed.error);
const page = feed.data.data;
if (!('fav_index' in page)) failed('get_next_list (answer)', page);
const first = page.list[0];
if (!first) failed('get_next_list (an empty feed)', page);
const liked = await client.GET('/api/v1', { params: { query: { do: 'like', openid, token, vid: first.vid } } });
if (!liked.data) failed('like', liked.error);
const like = liked.data.data;
if (!('liked' in like)) failed('like (answer)', like);

// A key's whole life: create, list, verify, revoke (then it no longer verifies), delete.
const auth = { headers: { authorization: `Bearer ${token}` } };
const created = await client.POST('/api/v1/api-keys', { ...auth, body: { name: 'typed client', scopes: ['export:read'] } });
if (!created.data) failed('create a key', created.error);
const { api_key: apiKey, key } = created.data.data;
const listed = await client.GET('/api/v1/api-keys', auth);
if (!listed.data) failed('list keys', listed.error);
const verified = await client.GET('/api/v1/api-keys/verify', { params: { query: { key: apiKey } } });
if (!verified.data) failed('verify', verified.error);
const revoked = await client.POST('/api/v1/api-keys/{id}/revoke', { ...auth, params: { path: { id: key.id } } });
if (!revoked.data) failed('revoke', revoked.error);
const afterRevoke = await client.GET('/api/v1/api-keys/verify', { params: { query: { key: apiKey } } });
const deleted = await client.DELETE('/api/v1/api-keys/{id}', { ...auth, params: { path: { id: key.id } } });
if (!deleted.data) failed('delete', deleted.error);

// Calls the document does not allow do not compile (an unused directive would fail tsc); never run.
export function refusedByTheCompiler() {
  // @ts-expect-error: no such do (a misspelling)
  void client.GET('/api/v1', { params: { query: { do: 'get_next_lst', openid } } });
  // @ts-expect-error: do is required
  void client.GET('/api/v1', { params: { query: { openid } } });
  // @ts-expect-error: watch_count is a number (or empty), not a boolean
  void client.GET('/api/v1', { params: { query: { do: 'get_next_list', openid, watch_count: true } } });
  // @ts-expect-error: order is one of '', rec, hot, new
  void client.GET('/api/v1', { params: { query: { do: 'get_next_list', openid, order: 'best' } } });
}

console.log(
  JSON.stringify({
    signed_up: account.new_account,
    guest_feed: guestPage.list.length,
    feed: page.list.length,
    liked: like.liked,
    like_count: like.like_count,
    key_listed: listed.data.data.some((k) => k.id === key.id),
    verified_user: verified.data.data.user_id === openid,
    revoked: revoked.data.data.revoked,
    verify_after_revoke: afterRevoke.response.status,
    deleted: deleted.data.data.deleted,
  }),
);

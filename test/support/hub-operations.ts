import { HUB_OPERATION_LIST } from '../../lib/transport/hub/operations.js';

/**
 * What the tests need to know of each hub `do`, one entry per operation of
 * lib/transport/hub/operations.ts (test/unit/hub-operations.test.ts fails when one is missing or
 * left over). The tests' lists of operations are HUB_OPERATIONS; this adds, per operation:
 * - `access`: who may call it as the contract says (docs/protected-api.md, "The scope gate";
 *   docs/accounts.md: a key never deletes its owner; docs/moderation.md: nor accepts terms for a
 *   person), written here rather than read from the operations (a test reading the product's own
 *   table would agree with any mistake in it);
 * - `params`: parameters besides `openid` and `token` that pass the operation's validation, in a
 *   world of a few fixtures (`SampleWorld`), so that the only thing left to decide is what a test checks.
 */
export type HubAccess = 'none' | 'hub:read' | 'hub:write' | 'login token only';

export interface SampleWorld {
  /** A live video another account published. */
  vid: string;
  /** Another account's openid. */
  other: string;
  /** A comment of the caller on `vid`. */
  ownComment: string;
  /** Makes each call's text its own (comment_set's retry window returns the first comment). */
  unique: () => string;
}

/** Placeholders for tests that never reach the use case (refused before: a 401, a 400). */
export const PLACEHOLDER_WORLD: SampleWorld = { vid: 'v_placeholder', other: 'u_placeholder', ownComment: 'c_placeholder', unique: () => 'placeholder' };

export interface HubSample {
  access: HubAccess;
  params: (world: SampleWorld) => Record<string, string>;
  /** The call ends the caller's account: run it with an account of its own. */
  endsAccount?: true;
}

export const HUB_SAMPLES: Record<string, HubSample> = {
  gen_code: { access: 'none', params: () => ({ phonenumber: '+8613800138000', nonce: 'sample-nonce-01' }) },
  create_phone_account: { access: 'none', params: () => ({ openid: '+8613800138000', token: 'sample-nonce-01', code: '123456', openid0: '', token0: '' }) },
  get_next_list: { access: 'hub:read', params: () => ({ order: 'new', d: 'sample' }) },
  get_video: { access: 'hub:read', params: (w) => ({ vid: w.vid }) },
  get_fav: { access: 'hub:read', params: () => ({ next_id: '0', fav_index: '0', watch_list: '', view: '', q: '' }) },
  get_follow: { access: 'hub:read', params: () => ({ watch_list: '', offset: '0' }) },
  get_follower: { access: 'hub:read', params: () => ({ watch_list: '', offset: '0' }) },
  like: { access: 'hub:write', params: (w) => ({ vid: w.vid }) },
  dislike: { access: 'hub:write', params: (w) => ({ vid: w.vid, action: 'dislike' }) },
  comment_set: { access: 'hub:write', params: (w) => ({ vid: w.vid, content: `sample ${w.unique()}` }) },
  comment_get: { access: 'hub:read', params: (w) => ({ vid: w.vid, page: '1', d: '' }) },
  comment_delete: { access: 'hub:write', params: (w) => ({ vid: w.vid, cid: w.ownComment }) },
  report: { access: 'hub:write', params: (w) => ({ target: 'user', id: w.other, reason: 'spam' }) },
  my_reports: { access: 'hub:read', params: () => ({}) },
  // Optional, as get_next_list: a credential attributes the share (docs/hub-api.md, "sharetext").
  sharetext: { access: 'hub:write', params: (w) => ({ vid: w.vid, d: 'sample', locale: 'en', country: '' }) },
  follow_user: { access: 'hub:write', params: (w) => ({ follow_user: w.other }) },
  unfollow_user: { access: 'hub:write', params: (w) => ({ follow_user: w.other }) },
  change_nickname: { access: 'hub:write', params: () => ({ nickname: 'Gatekeeper' }) },
  change_signature: { access: 'hub:write', params: () => ({ signature: 'checks scopes' }) },
  change_city: { access: 'hub:write', params: () => ({ city: 'Ningbo' }) },
  delete_account: { access: 'login token only', params: () => ({ confirm: 'delete' }), endsAccount: true },
  accept_terms: { access: 'login token only', params: () => ({ terms_version: '1' }) },
  block_user: { access: 'hub:write', params: (w) => ({ block_user: w.other }) },
  unblock_user: { access: 'hub:write', params: (w) => ({ block_user: w.other }) },
  get_blocked: { access: 'hub:read', params: () => ({ offset: '0' }) },
};

/** The sample of `op`; throws naming the file when the table lacks it. */
export function hubSample(op: string): HubSample {
  const sample = Object.hasOwn(HUB_SAMPLES, op) ? HUB_SAMPLES[op] : undefined;
  if (!sample) throw new Error(`test/support/hub-operations.ts has no entry for do=${op}: add one`);
  return sample;
}

/** Every operation's name, in the order of lib/transport/hub/operations.ts. */
export const HUB_OPERATION_NAMES = HUB_OPERATION_LIST.map((operation) => operation.name);

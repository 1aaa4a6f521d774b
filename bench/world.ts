import { HUB_OPERATIONS } from '../lib/transport/hub/operations.js';
import { importCatalog } from './catalog.js';
import { jwtFor, mustSucceed, signUp, signUpMany, type Account } from './fixtures.js';
import { hubRequest } from './invoke.js';

/**
 * The accounts, videos and relations that the scenarios share, created once per bench process
 * through the real operations where they exist (sign-up, follow, comment, like, feed), so every
 * list a scenario reads has content.
 */
export interface World {
  alice: Account;
  bob: Account;
  /** An account with the stored role editor, and a JWT carrying it. */
  editor: Account;
  /** The account of ADMIN_PHONES (admin role from sign-up). */
  admin: Account;
  /** Catalog videos (by the editor). */
  vids: string[];
  /** A video with COMMENTED_VIDEO_COMMENTS comments. */
  commentedVid: string;
}

export const WORLD_VIDEOS = 200;
const COMMENTED_VIDEO_COMMENTS = 45;
const has = (op: string) => Object.hasOwn(HUB_OPERATIONS, op);

let built: Promise<World> | undefined;

export function world(): Promise<World> {
  built ??= (async () => {
    const [alice, bob, editor] = [await signUp(), await signUp(), await signUp()];
    const admin = await signUp('+8613800138000');
    const { setAccountRoles } = await import('../lib/entities/accounts/accounts.js');
    await setAccountRoles(editor.openid, ['editor']);
    editor.token = await jwtFor(editor.openid, ['editor']);

    // Several authors, as in a real catalog (the feed caps videos per author).
    const authors = [editor.openid, ...(await signUpMany(9)).map((a) => a.openid)];
    const vids = await importCatalog(authors, 0, WORLD_VIDEOS, { prefix: 'wv' });
    const commentedVid = vids[0]!;
    const a = { openid: alice.openid, token: alice.token };
    const b = { openid: bob.openid, token: bob.token };
    if (has('follow_user')) {
      await mustSucceed(hubRequest('follow_user', { ...a, follow_user: bob.openid }));
      await mustSucceed(hubRequest('follow_user', { ...b, follow_user: alice.openid }));
      await mustSucceed(hubRequest('follow_user', { ...b, follow_user: editor.openid }));
    }
    if (has('comment_set')) {
      for (let i = 0; i < COMMENTED_VIDEO_COMMENTS; i++) {
        const who = i % 2 === 0 ? a : b;
        await mustSucceed(hubRequest('comment_set', { ...who, vid: commentedVid, content: `world comment ${i}` }));
      }
      for (const vid of vids.slice(1, 6)) await mustSucceed(hubRequest('comment_set', { ...a, vid, content: 'nice' }));
    }
    if (has('like')) for (const vid of vids.slice(0, 30)) await mustSucceed(hubRequest('like', { ...a, vid }));
    if (has('get_next_list')) {
      for (let i = 0; i < 3; i++) {
        const page = await mustSucceed(hubRequest('get_next_list', a));
        const seen = ((page.list as { vid: string }[] | undefined) ?? []).map((v) => v.vid);
        if (seen.length) await mustSucceed(hubRequest('get_next_list', { ...a, view_list: seen.join(',') }));
      }
    }
    return { alice, bob, editor, admin, vids, commentedVid };
  })();
  return built;
}

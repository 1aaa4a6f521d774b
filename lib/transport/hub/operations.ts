import { acceptTermsOperation } from './accept-terms.js';
import { blockUser } from './block-user.js';
import { changeCity } from './change-city.js';
import { changeNickname } from './change-nickname.js';
import { changeSignature } from './change-signature.js';
import { commentDelete } from './comment-delete.js';
import { commentGet } from './comment-get.js';
import { commentSet } from './comment-set.js';
import { createPhoneAccount } from './create-phone-account.js';
import { deleteAccount } from './delete-account.js';
import { dislike } from './dislike.js';
import { followUser } from './follow-user.js';
import { genCode } from './gen-code.js';
import { getFav } from './get-fav.js';
import { getFollow } from './get-follow.js';
import { getBlocked } from './get-blocked.js';
import { getFollower } from './get-follower.js';
import { getNextList } from './get-next-list.js';
import { like } from './like.js';
import { myReports } from './my-reports.js';
import type { HubOperation } from './operation.js';
import { report } from './report.js';
import { sharetext } from './sharetext.js';
import { unblockUser } from './unblock-user.js';
import { unfollowUser } from './unfollow-user.js';

/**
 * The dispatch table of `GET /api/v1?do=<operation>`: one module per operation under lib/transport/hub/.
 * Keys are the `do` values, one section each in docs/hub-api.md and docs/hub-feed-api.md.
 */
export const HUB_OPERATIONS: Record<string, HubOperation> = {
  gen_code: genCode,
  create_phone_account: createPhoneAccount,
  get_next_list: getNextList,
  get_fav: getFav,
  get_follow: getFollow,
  get_follower: getFollower,
  like,
  dislike,
  comment_set: commentSet,
  comment_get: commentGet,
  comment_delete: commentDelete,
  report,
  my_reports: myReports,
  sharetext,
  follow_user: followUser,
  unfollow_user: unfollowUser,
  change_nickname: changeNickname,
  change_signature: changeSignature,
  change_city: changeCity,
  delete_account: deleteAccount,
  accept_terms: acceptTermsOperation,
  block_user: blockUser,
  unblock_user: unblockUser,
  get_blocked: getBlocked,
};

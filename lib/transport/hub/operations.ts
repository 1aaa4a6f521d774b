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
import { getVideo } from './get-video.js';
import { like } from './like.js';
import { myReports } from './my-reports.js';
import type { HubOperation } from './operation.js';
import { report } from './report.js';
import { sharetext } from './sharetext.js';
import { unblockUser } from './unblock-user.js';
import { unfollowUser } from './unfollow-user.js';

/**
 * Every hub operation, one line each, in the order of the API reference (docs/hub-api.md,
 * docs/hub-feed-api.md: a section each). Each module under lib/transport/hub/ declares its `do`
 * (operation.ts); the dispatch table, the OpenAPI document's hub section
 * (scripts/openapi/document.ts) and the tests' lists of operations are derived from this list
 * (what a test needs per operation: test/support/hub-operations.ts, checked by
 * test/unit/hub-operations.test.ts).
 */
export const HUB_OPERATION_LIST: readonly HubOperation[] = [
  genCode,
  createPhoneAccount,
  getNextList,
  getVideo,
  getFav,
  getFollow,
  getFollower,
  like,
  dislike,
  commentSet,
  commentGet,
  commentDelete,
  report,
  myReports,
  sharetext,
  followUser,
  unfollowUser,
  changeNickname,
  changeSignature,
  changeCity,
  deleteAccount,
  acceptTermsOperation,
  blockUser,
  unblockUser,
  getBlocked,
];

/** The dispatch table of `GET /api/v1?do=<operation>`, keyed by each operation's `do`. */
export const HUB_OPERATIONS: Record<string, HubOperation> = Object.fromEntries(HUB_OPERATION_LIST.map((operation) => [operation.name, operation]));

/**
 * The client's method names (client/src/generated.ts): each hub `do` and each route ("METHOD path")
 * under the group a developer looks in (issue 38). A new operation or route without a name here
 * stops the generator (scripts/client/generated-file.ts), so nothing is left out of the client.
 * `page`: how a cursor-paged list continues (the parameter that asks for the next page, the answer's
 * field that gives it, and the value that ends the list), read by the client's iterators.
 */
export interface Paging {
  param: string;
  next: string;
  /** The answer's value of `next` on the last page. */
  end: '' | -1 | null | 'has_more';
}

export const HUB_NAMES: Record<string, { name: string; page?: Paging }> = {
  gen_code: { name: 'auth.requestCode' },
  create_phone_account: { name: 'auth.signIn' },
  get_next_list: { name: 'feed.next', page: { param: 'fav_index', next: 'fav_index', end: '' } },
  get_video: { name: 'videos.get' },
  get_fav: { name: 'me.lists', page: { param: 'next_id', next: 'next_id', end: -1 } },
  get_follow: { name: 'social.following', page: { param: 'offset', next: 'next_offset', end: -1 } },
  get_follower: { name: 'social.followers', page: { param: 'offset', next: 'next_offset', end: -1 } },
  like: { name: 'videos.like' },
  dislike: { name: 'videos.dislike' },
  comment_set: { name: 'comments.post' },
  comment_get: { name: 'comments.list', page: { param: 'page', next: 'page', end: 'has_more' } },
  comment_delete: { name: 'comments.delete' },
  report: { name: 'safety.report' },
  my_reports: { name: 'safety.myReports', page: { param: 'cursor', next: 'cursor', end: '' } },
  sharetext: { name: 'videos.share' },
  follow_user: { name: 'social.follow' },
  unfollow_user: { name: 'social.unfollow' },
  change_nickname: { name: 'me.changeNickname' },
  change_signature: { name: 'me.changeSignature' },
  change_city: { name: 'me.changeCity' },
  delete_account: { name: 'me.deleteAccount' },
  accept_terms: { name: 'me.acceptTerms' },
  block_user: { name: 'safety.block' },
  unblock_user: { name: 'safety.unblock' },
  get_blocked: { name: 'safety.blocked', page: { param: 'offset', next: 'next_offset', end: -1 } },
};

const cursor: Paging = { param: 'cursor', next: 'next_cursor', end: null };

export const ROUTE_NAMES: Record<string, { name: string; page?: Paging }> = {
  'GET /api/v1/health': { name: 'service.health' },
  'GET /api/v1/openapi.json': { name: 'service.openapi' },
  'GET /api/v1/docs': { name: 'service.docs' },
  'GET /api/v1/policies': { name: 'service.policies' },
  'POST /api/v1/api-keys': { name: 'keys.create' },
  'GET /api/v1/api-keys': { name: 'keys.list' },
  'POST /api/v1/api-keys/{id}/revoke': { name: 'keys.revoke' },
  'DELETE /api/v1/api-keys/{id}': { name: 'keys.delete' },
  'GET /api/v1/api-keys/verify': { name: 'keys.verify' },
  'GET /api/v1/api-keys/{id}/usage': { name: 'keys.usage' },
  'GET /api/v1/me': { name: 'me.get' },
  'GET /api/v1/me/data': { name: 'me.exportData', page: cursor },
  'POST /api/v1/admin/users/{openid}/roles': { name: 'admin.setRoles' },
  'POST /api/v1/logout': { name: 'auth.signOut' },
  'GET /api/v1/audit': { name: 'me.audit', page: cursor },
  'GET /api/v1/admin/users/{openid}/api-keys': { name: 'admin.listKeys' },
  'POST /api/v1/admin/api-keys/{id}/revoke': { name: 'admin.revokeKey' },
  'POST /api/v1/admin/api-keys/lookup': { name: 'admin.lookupKey' },
  'POST /api/v1/admin/users/{openid}/suspend': { name: 'admin.suspend' },
  'POST /api/v1/admin/users/{openid}/reinstate': { name: 'admin.reinstate' },
  'DELETE /api/v1/me': { name: 'me.delete' },
  'DELETE /api/v1/admin/users/{openid}': { name: 'admin.deleteAccount' },
  'GET /api/v1/deletions/{id}': { name: 'me.deletionStatus' },
  'GET /api/v1/admin/filter-terms': { name: 'moderation.filterTerms' },
  'POST /api/v1/admin/filter-terms': { name: 'moderation.putFilterTerms' },
  'DELETE /api/v1/admin/filter-terms/{term}': { name: 'moderation.deleteFilterTerm' },
  'POST /api/v1/videos': { name: 'videos.publish' },
  'GET /api/v1/export/comments': { name: 'exports.comments', page: cursor },
  'GET /api/v1/export/accounts': { name: 'exports.accounts', page: cursor },
  'GET /api/v1/moderation/reports': { name: 'moderation.queue', page: cursor },
  'POST /api/v1/moderation/actions': { name: 'moderation.act' },
  'GET /s/{shareid}': { name: 'service.sharePage' },
  'GET /.well-known/apple-app-site-association': { name: 'service.appleAppSiteAssociation' },
  'GET /.well-known/assetlinks.json': { name: 'service.assetLinks' },
};

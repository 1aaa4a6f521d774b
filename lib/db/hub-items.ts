/**
 * Key builders of the hub table (single-table design): the only place that spells its keys.
 * Every entity owns its builders here; use cases never assemble key strings themselves.
 *
 * Table: pk/sk, GSI gsi1 (gsi1pk/gsi1sk), GSI gsi2 (gsi2pk/gsi2sk), TTL attribute `ttl`.
 * Time-ordered sort keys use ISO 8601 timestamps (which sort as strings) followed by an id.
 * Access patterns are listed in README.md ("Data model").
 */
export const pad = (n: number, width = 12) => String(n).padStart(width, '0');
/** A time (epoch ms) as a sort-key part that sorts newest first (fixed width, until the year 2286). */
const newestFirst = (atMs: number) => pad(9_999_999_999_999 - Math.floor(atMs), 13);
export const timeKey = (iso: string, id: string) => `${iso}#${id}`;

/**
 * Write-sharded index partitions (docs/data-model.md, "Sharded index partitions"): an item of one of
 * these lists goes to partition `<NAME>#<k>`, k = shardOf(its id, count), so the list's writes spread
 * over `count` partitions; readers Query every shard in parallel and merge by sort key
 * (lib/db/shard-merge.ts). The counts follow the writes at the 100x traffic mix and the requests a
 * reader may spend: a feed walk reads every shard of VIDEOS or TRENDING on each page within the
 * get_next_list budget of 8 requests.
 */
export const SHARDS = { videos: 2, trending: 2, accounts: 2, comments: 4 } as const;

/** k of an item id: FNV-1a (32 bits) of its UTF-16 code units, mod `count`. Stable across processes and versions. */
export function shardOf(id: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % count;
}

const shardKey = (name: string, id: string, count: number) => `${name}#${shardOf(id, count)}`;
const allShards = (name: string, count: number) => Array.from({ length: count }, (_, k) => `${name}#${k}`);

export const hubItems = {
  // Accounts ---------------------------------------------------------------------------------------
  /** The profile and its counters. gsi1: ACCOUNTS#k / created_at#openid (export of all accounts; k from the openid). */
  account: (openid: string) => ({ pk: `ACCOUNT#${openid}`, sk: 'PROFILE' }),
  accountsIndex: (createdAt: string, openid: string) => ({ gsi1pk: shardKey('ACCOUNTS', openid, SHARDS.accounts), gsi1sk: timeKey(createdAt, openid) }),
  /**
   * One stored audit event of an account (lib/audit/trail.ts), kept 90 days (TTL): under the
   * account's partition, time-ordered, so `GET /api/v1/audit` is one Query, newest first.
   */
  auditEvent: (openid: string, atIso: string, id: string) => ({ pk: `ACCOUNT#${openid}`, sk: `AUDIT#${timeKey(atIso, id)}` }),
  auditPrefix: 'AUDIT#',
  /** An event id given by its writer (lib/audit/trail.ts, audit()): stored once per id, with the event's TTL. */
  auditEventId: (openid: string, id: string) => ({ pk: `ACCOUNT#${openid}`, sk: `AUDITID#${id}` }),
  /** phone (E.164) -> openid; written with the account in one transaction, so a phone has one account. */
  phone: (e164: string) => ({ pk: `PHONE#${e164}`, sk: 'ACCOUNT' }),
  /**
   * A pending SMS code of a phone, one per nonce (the device that asked), hash only, with a TTL: a
   * request from another device never replaces it (docs/hub-api.md, "gen_code").
   */
  smsCode: (e164: string, nonce: string) => ({ pk: `PHONE#${e164}`, sk: `CODE#${nonce}` }),
  /** When a phone was last sent a code for one caller network (its resend wait), with a TTL. */
  smsRequester: (e164: string, network: string) => ({ pk: `PHONE#${e164}`, sk: `SENT#${network}` }),
  /** A fixed-window counter for rate limits, with a TTL: e.g. rateWindow('sms-phone', phone, 'h', 493812). */
  rateWindow: (limit: string, subject: string, window: string) => ({ pk: `RATE#${limit}#${subject}`, sk: window }),

  // Videos -----------------------------------------------------------------------------------------
  /** The video and its counters. gsi1: VIDEOS#k / created_at#vid (order=new; k from the vid); gsi2: AUTHOR#openid / created_at#vid. */
  video: (vid: string) => ({ pk: `VIDEO#${vid}`, sk: 'VIDEO' }),
  videosIndex: (createdAt: string, vid: string) => ({ gsi1pk: shardKey('VIDEOS', vid, SHARDS.videos), gsi1sk: timeKey(createdAt, vid) }),
  authorIndex: (openid: string, createdAt: string, vid: string) => ({ gsi2pk: `AUTHOR#${openid}`, gsi2sk: timeKey(createdAt, vid) }),
  /** (author, external_id) -> vid: makes publishing idempotent per account. */
  externalId: (openid: string, externalId: string) => ({ pk: `ACCOUNT#${openid}`, sk: `EXTERNAL#${externalId}` }),
  /** Retry guard of publishing without external_id: (author, content digest) -> vid for a short window, with a TTL. */
  publishGuard: (openid: string, digest: string) => ({ pk: `ACCOUNT#${openid}`, sk: `PUBLISHED#${digest}` }),

  // Reactions --------------------------------------------------------------------------------------
  /** openid liked vid. gsi1: LIKES#openid / liked_at#vid (my likes, newest first); gsi2: LIKERS#vid / liked_at#openid. */
  like: (openid: string, vid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `LIKE#${vid}` }),
  likesIndex: (openid: string, likedAt: string, vid: string) => ({ gsi1pk: `LIKES#${openid}`, gsi1sk: timeKey(likedAt, vid) }),
  likersIndex: (vid: string, likedAt: string, openid: string) => ({ gsi2pk: `LIKERS#${vid}`, gsi2sk: timeKey(likedAt, openid) }),
  /** openid is not interested in vid. */
  dislike: (openid: string, vid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `DISLIKE#${vid}` }),

  // Comments ---------------------------------------------------------------------------------------
  /**
   * Comment number `seq` (1, 2, ...) of a video: page N is the seq range below the video's
   * comment_count, so every page costs one Query. gsi1: COMMENTS#openid / created_at#cid (my
   * comments); gsi2: COMMENTS#k / created_at#cid (export of all comments; k from the cid).
   */
  comment: (vid: string, seq: number) => ({ pk: `VIDEO#${vid}`, sk: `COMMENT#${pad(seq)}` }),
  commentsByAuthorIndex: (openid: string, createdAt: string, cid: string) => ({ gsi1pk: `COMMENTS#${openid}`, gsi1sk: timeKey(createdAt, cid) }),
  allCommentsIndex: (createdAt: string, cid: string) => ({ gsi2pk: shardKey('COMMENTS', cid, SHARDS.comments), gsi2sk: timeKey(createdAt, cid) }),
  /**
   * Retry guard of comment_set: (openid, vid, content) within 60 s, with a TTL. Written first as the
   * comment's reservation (with the window slot), given the comment's `seq` when it is written.
   */
  commentDedup: (openid: string, digest: string) => ({ pk: `ACCOUNT#${openid}`, sk: `COMMENTDEDUP#${digest}` }),
  /** openid commented on vid (latest comment time): get_fav watch_list=comment lists each video once. gsi1: COMMENTED#openid / commented_at#vid. */
  commented: (openid: string, vid: string) => ({ pk: `ACCOUNT#${openid}`, sk: `COMMENTED#${vid}` }),
  commentedIndex: (openid: string, at: string, vid: string) => ({ gsi1pk: `COMMENTED#${openid}`, gsi1sk: timeKey(at, vid) }),
  /**
   * The numbering of a video's comments: `n` numbers handed out (a plain atomic update, never in a
   * transaction, so parallel comments never conflict; only by comments already reserved), `claim`
   * (the take of the latest number) and `gaps`, the numbers of comments whose write failed after
   * taking theirs (at most 1,000: docs/data-model.md, "Comment numbers"). Absent on videos commented
   * on before it: their comments are 1..comment_count with no gaps.
   */
  commentSequence: (vid: string) => ({ pk: `VIDEO#${vid}`, sk: 'COMMENTSEQ' }),

  // Stream processing (lib/streams/) ---------------------------------------------------------------
  /** "Stream record `eventId` has been applied": written with its counter deltas in one transaction, with a TTL. */
  streamApplied: (eventId: string) => ({ pk: `STREAMED#${eventId}`, sk: 'APPLIED' }),

  // Follows ----------------------------------------------------------------------------------------
  /**
   * follower -> followee. gsi1: FOLLOWING#follower / relation#followee, where `relation` is the
   * relation number pad(seq) the follower's account handed out (newest = highest), so get_follow
   * reads any `offset` with one Query (see lib/social/follows.ts).
   */
  follows: (follower: string, followee: string) => ({ pk: `ACCOUNT#${follower}`, sk: `FOLLOWS#${followee}` }),
  followingIndex: (follower: string, relation: string, followee: string) => ({ gsi1pk: `FOLLOWING#${follower}`, gsi1sk: timeKey(relation, followee) }),
  /** followee <- follower (the same relation seen from the other side). gsi1: FOLLOWERS#followee / relation#follower (the followee's numbering). */
  followedBy: (followee: string, follower: string) => ({ pk: `ACCOUNT#${followee}`, sk: `FOLLOWER#${follower}` }),
  followersIndex: (followee: string, relation: string, follower: string) => ({ gsi1pk: `FOLLOWERS#${followee}`, gsi1sk: timeKey(relation, follower) }),

  // Viewing and sharing ----------------------------------------------------------------------------
  /** A share: one per (sharer, video, UTC day), with a TTL (lib/share/shares.ts). */
  share: (shareid: string) => ({ pk: `SHARE#${shareid}`, sk: 'SHARE' }),
  /** An invitation recorded once per new account. */
  invite: (inviter: string, invitee: string) => ({ pk: `ACCOUNT#${inviter}`, sk: `INVITED#${invitee}` }),

  // Feed and recommendation (lib/recommend/, docs/feed.md) ------------------------------------------
  /** A video's place in the trending ranking (on the video item). gsi3: TRENDING#k / trend score (k from the vid). */
  trendingIndex: (vid: string, trend: number) => ({ gsi3pk: shardKey('TRENDING', vid, SHARDS.trending), gsi3sk: trend }),
  /** One tag of a video, ranked by the video's trend score. gsi3: TAG#tag / trend score. */
  videoTag: (vid: string, tag: string) => ({ pk: `VIDEO#${vid}`, sk: `TAG#${tag}` }),
  tagIndex: (tag: string, trend: number) => ({ gsi3pk: `TAG#${tag}`, gsi3sk: trend }),
  /** Videos liked by the same people as vid, with counts (capped map). */
  coLikes: (vid: string) => ({ pk: `VIDEO#${vid}`, sk: 'COLIKES' }),
  /** The newest videos of an author (capped list): the "authors you follow" candidate source. */
  authorLatest: (openid: string) => ({ pk: `ACCOUNT#${openid}`, sk: 'LATEST_VIDEOS' }),
  /**
   * The recommender's state of an account / of an anonymous device: taste, dislikes, seen, served.
   * An account's state sorts right before its FOLLOWS# items ('!' < '#', and after FOLLOWER#), so
   * get_next_list reads the state and the followed accounts with ONE Query (feedStateAndFollows).
   */
  feedState: (openid: string) => ({ pk: `ACCOUNT#${openid}`, sk: 'FOLLOWS!FEED' }),
  deviceFeedState: (deviceId: string) => ({ pk: `DEVICE#${deviceId}`, sk: 'FEED' }),
  /**
   * One get_next_list call's record (what it viewed, served, deferred; where rec stands), written
   * once with a plain Put and never rewritten, with a TTL (docs/feed.md, "Feed state"). It sorts right
   * after the state, newest first, and before the FOLLOWS# items: the state's Query reads them all.
   */
  feedChunk: (openid: string, atMs: number, id: string) => ({ pk: `ACCOUNT#${openid}`, sk: `FOLLOWS!FEED#${newestFirst(atMs)}#${id}` }),
  deviceFeedChunk: (deviceId: string, atMs: number, id: string) => ({ pk: `DEVICE#${deviceId}`, sk: `FEED#${newestFirst(atMs)}#${id}` }),
  /**
   * The videos one get_next_list call reported as viewed (history list): the vids ride in the
   * gsi1 sort key, `seen_at#vid,vid,...`, so get_fav reads them from the index keys alone.
   * gsi1: HISTORY#openid (get_fav's history list).
   */
  viewHistory: (openid: string, seenAt: string, id: string) => ({ pk: `ACCOUNT#${openid}`, sk: `HISTORY#${seenAt}#${id}` }),
  viewHistoryIndex: (openid: string, seenAt: string, vids: string[]) => ({ gsi1pk: `HISTORY#${openid}`, gsi1sk: timeKey(seenAt, vids.join(',')) }),
  /**
   * A search posting: the video `vid`, created at `createdAt`, has `gram` in its text. One small item
   * per (gram, video), so that no item grows with the catalog; the sort key orders a gram's
   * postings by creation time (docs/data-model.md, "Search postings").
   */
  searchPosting: (gram: string, createdAt: string, vid: string) => ({ pk: `GRAM#${gram}`, sk: timeKey(createdAt, vid) }),
  /** How many videos carry a tag (`n`), and how many videos the catalog holds (`videos`): the feed's tag weights (idf). */
  tagStats: (tag: string) => ({ pk: `TAG#${tag}`, sk: 'STATS' }),
  catalogStats: () => ({ pk: 'CATALOG', sk: 'STATS' }),
};

/** Partition values for Queries, taken from the builders above so the strings live in one place. */
export const hubPartitions = {
  /** Every shard of a sharded list, in shard order: readers Query them all and merge. */
  videos: allShards('VIDEOS', SHARDS.videos),
  trending: allShards('TRENDING', SHARDS.trending),
  accounts: allShards('ACCOUNTS', SHARDS.accounts),
  comments: allShards('COMMENTS', SHARDS.comments),
  /** The shard of an item in those lists. */
  videoShard: (vid: string) => shardOf(vid, SHARDS.videos),
  trendingShard: (vid: string) => shardOf(vid, SHARDS.trending),
  tag: (tag: string) => hubItems.tagIndex(tag, 0).gsi3pk,
  author: (openid: string) => hubItems.authorIndex(openid, '', '').gsi2pk,
  following: (openid: string) => hubItems.followingIndex(openid, '', '').gsi1pk,
  gram: (gram: string) => hubItems.searchPosting(gram, '', '').pk,
};

/** Sort-key range of an account's feed state, its call records (feedChunk) and its FOLLOWS# items (see feedState). */
export const feedStateAndFollows = (openid: string) => ({
  pk: hubItems.feedState(openid).pk,
  from: hubItems.feedState(openid).sk,
  to: `${hubItems.follows(openid, '').sk}\uffff`,
  chunkPrefix: `${hubItems.feedState(openid).sk}#`,
});

/** Sort-key range of a device's feed state and its call records (deviceFeedChunk). */
export const deviceFeedStateAndChunks = (deviceId: string) => ({
  pk: hubItems.deviceFeedState(deviceId).pk,
  from: hubItems.deviceFeedState(deviceId).sk,
  to: `${hubItems.deviceFeedState(deviceId).sk}#\uffff`,
  chunkPrefix: `${hubItems.deviceFeedState(deviceId).sk}#`,
});

/**
 * The soak's ledger: what the store must hold, written from the answers the simulated users got.
 * Each fact has one owner (a like and a dislike belong to the liker, a follow to the follower, a
 * key to its user, a comment is named by its cid), and each user sends its requests one after the
 * other (its deliberate duplicates being the same request), so the owner's last acknowledged answer
 * decides the fact. Every count is derived from the facts, never kept as a number of its own.
 */
export interface VideoCounts {
  like_count: number;
  comment_count: number;
}

export interface AccountCounts {
  follow_count: number;
  follower_count: number;
  like_count: number;
  liked_count: number;
}

export interface LedgerKey {
  id: number;
  apiKey: string;
  active: boolean;
  deleted: boolean;
}

export interface Mismatch {
  entity: 'video' | 'account' | 'key';
  id: string;
  field: string;
  expected: string | number | boolean;
  seen: string | number | boolean;
}

const setOf = <K, V>(map: Map<K, Set<V>>, key: K): Set<V> => {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  return set;
};

export class Ledger {
  private readonly authorOf = new Map<string, string>();
  private readonly accountIds = new Set<string>();
  private readonly likes = new Map<string, Set<string>>();
  private readonly dislikes = new Map<string, Set<string>>();
  private readonly follows = new Map<string, Set<string>>();
  private readonly commentIds = new Map<string, Set<string>>();
  private readonly keyRecords = new Map<string, Map<number, LedgerKey>>();

  addAccount(openid: string): void {
    this.accountIds.add(openid);
  }

  addVideo(vid: string, author: string): void {
    this.authorOf.set(vid, author);
    setOf(this.commentIds, vid);
  }

  /** like: the like exists, a dislike of the same video is gone. */
  liked(openid: string, vid: string): void {
    setOf(this.likes, openid).add(vid);
    this.dislikes.get(openid)?.delete(vid);
  }

  /** dislike: the like is gone, the dislike exists. */
  disliked(openid: string, vid: string): void {
    this.likes.get(openid)?.delete(vid);
    setOf(this.dislikes, openid).add(vid);
  }

  followed(follower: string, followee: string): void {
    setOf(this.follows, follower).add(followee);
  }

  unfollowed(follower: string, followee: string): void {
    this.follows.get(follower)?.delete(followee);
  }

  /** A comment_set answer: a retry that got the first comment back names the same cid. */
  commented(vid: string, cid: string): void {
    setOf(this.commentIds, vid).add(cid);
  }

  keyCreated(user: string, id: number, apiKey: string): void {
    let keys = this.keyRecords.get(user);
    if (!keys) this.keyRecords.set(user, (keys = new Map()));
    keys.set(id, { id, apiKey, active: true, deleted: false });
  }

  keyRevoked(user: string, id: number): void {
    const key = this.keyRecords.get(user)?.get(id);
    if (key) key.active = false;
  }

  keyDeleted(user: string, id: number): void {
    const key = this.keyRecords.get(user)?.get(id);
    if (key) Object.assign(key, { active: false, deleted: true });
  }

  accounts(): string[] {
    return [...this.accountIds];
  }

  videos(): string[] {
    return [...this.authorOf.keys()];
  }

  likedBy(openid: string): ReadonlySet<string> {
    return this.likes.get(openid) ?? new Set();
  }

  dislikedBy(openid: string): ReadonlySet<string> {
    return this.dislikes.get(openid) ?? new Set();
  }

  followees(openid: string): ReadonlySet<string> {
    return this.follows.get(openid) ?? new Set();
  }

  followers(openid: string): Set<string> {
    const out = new Set<string>();
    for (const [follower, followees] of this.follows) if (followees.has(openid)) out.add(follower);
    return out;
  }

  comments(vid: string): ReadonlySet<string> {
    return this.commentIds.get(vid) ?? new Set();
  }

  /** Every key the user created, deleted ones included (they must fail verification). */
  keys(user: string): LedgerKey[] {
    return [...(this.keyRecords.get(user)?.values() ?? [])];
  }

  videoCounts(vid: string): VideoCounts {
    let likes = 0;
    for (const liked of this.likes.values()) if (liked.has(vid)) likes += 1;
    return { like_count: likes, comment_count: this.comments(vid).size };
  }

  accountCounts(openid: string): AccountCounts {
    let liked = 0;
    for (const vids of this.likes.values()) for (const vid of vids) if (this.authorOf.get(vid) === openid) liked += 1;
    return {
      follow_count: this.followees(openid).size,
      follower_count: this.followers(openid).size,
      like_count: this.likedBy(openid).size,
      liked_count: liked,
    };
  }
}

/** Each field of `expected` against what the store answered (a missing field is a mismatch too). */
export function compareFields(entity: Mismatch['entity'], id: string, expected: object, seen: Record<string, unknown> | undefined): Mismatch[] {
  const out: Mismatch[] = [];
  for (const [field, value] of Object.entries(expected) as [string, string | number | boolean][]) {
    const got = seen?.[field];
    if (got !== value) out.push({ entity, id, field, expected: value, seen: got === undefined ? 'missing' : (got as string | number | boolean) });
  }
  return out;
}

/** A set the store holds against the ledger's: one mismatch naming what is missing and what is extra. */
export function compareSets(entity: Mismatch['entity'], id: string, field: string, expected: Iterable<string>, seen: Iterable<string>): Mismatch[] {
  const want = new Set(expected);
  const got = new Set(seen);
  const missing = [...want].filter((v) => !got.has(v));
  const extra = [...got].filter((v) => !want.has(v));
  if (missing.length === 0 && extra.length === 0) return [];
  const list = (label: string, values: string[]) => (values.length ? [`${label} ${values.slice(0, 5).join(' ')}${values.length > 5 ? ` (+${values.length - 5})` : ''}`] : []);
  return [{ entity, id, field, expected: `${want.size} items`, seen: [`${got.size} items`, ...list('missing', missing), ...list('extra', extra)].join('; ') }];
}

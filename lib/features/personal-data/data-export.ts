// Long by nature: every section of an account's data export, each a small reader of one range.
import { GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { accountKeys, getAccount, type Account } from '../../entities/accounts/accounts.js';
import { shownEntry } from '../../platform/audit/audit-list.js';
import { auditKeys, type AuditEntry } from '../../platform/audit/trail.js';
import { reactionKeys } from '../../entities/catalog/reaction-items.js';
import { videoKeys } from '../../entities/catalog/video-items.js';
import { clock } from '../../platform/clock.js';
import { commentKeys, type StoredComment } from '../../entities/comments/comments.js';
import { config } from '../../platform/config.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { db, tableNames } from '../../platform/db/client.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { keyRecordKeys, withLastUse } from '../keys/key-records.js';
import { toPublicKey, type StoredKey } from '../keys/key-record.js';
import { dailyKeyUsage } from '../keys/key-service.js';
import { feedKeys, fromStoredEntry, likedVids, parseFeedState } from '../recommend/feed-state.js';
import { openCursor, signCursor } from '../../platform/secrets/signed-cursor.js';
import { shareKeys, type StoredShare } from '../share/shares.js';
import { followKeys } from '../../entities/social/follows.js';
import { blockKeys } from '../../entities/social/block-items.js';
import { reportFromItem, reportKeys } from '../report/reports.js';
import { heldKeys, type HeldItem } from '../filter/held-items.js';
import type { AccountData, DataExportPage, ExportRecord, SectionName } from './data-export-api.js';

/**
 * `GET /api/v1/me/data` (docs/protected-api.md, "Download my data"): everything stored about the
 * caller's account, in pages. A page reads the sections below in order, each from where the cursor
 * left it, one request (a Query, or a Query and its BatchGet) at a time, until it holds
 * DATA_EXPORT_PAGE_SIZE records or the next read could take it past PAGE_REQUESTS DynamoDB requests;
 * the first page also reads the account (one GetItem). The cursor is signed (lib/platform/secrets/signed-cursor.ts)
 * and bound to the account: it names the section and the key of the last record given.
 */
export const DATA_EXPORT_FORMAT = 'expohub-personal-data/1';
/** The most DynamoDB requests one page makes (retries of a batch's unprocessed keys aside). */
export const PAGE_REQUESTS = 6;
const CURSOR_PURPOSE = 'personal-data';
const BAD_CURSOR = 'Invalid parameter "cursor": not a cursor this server issued for this account\'s export';

interface Reader {
  user_id: string;
  roles: readonly string[];
}

/** Where a section stands: the sort key of its last record (one string), or an index entry's `pk`, `sk` and index sort key. */
type Position = string[];

interface Step {
  records: ExportRecord[];
  /** Where the section continues; undefined when it is done. */
  next: Position | undefined;
  /** DynamoDB requests the step made. */
  requests: number;
}

interface Section {
  name: SectionName;
  /** The most requests one step of the section makes: a page starts a step only when it fits. */
  maxRequests: number;
  /** Whether `position` can be one of this section's (a cursor's content, checked before any read). */
  accepts: (position: Position) => boolean;
  /** One step from `position` (undefined: the start), at most `room` records. */
  read: (reader: Reader, position: Position | undefined, room: number, nowMs: number) => Promise<Step>;
}

/** One Query from `start`, at most `room` items, and where the range continues (the item after the last is read to tell the end). */
async function queryStep(input: QueryCommandInput, start: Record<string, unknown> | undefined, room: number, positionOf: (item: Record<string, unknown>) => Position) {
  const out = await db.send(new QueryCommand({ ...input, ExclusiveStartKey: start, Limit: room + 1 }));
  const items = out.Items ?? [];
  if (items.length > room) {
    const page = items.slice(0, room);
    return { items: page, next: positionOf(page[page.length - 1]!) };
  }
  // Fewer than asked: the end, unless DynamoDB stopped at its 1 MB page.
  return { items, next: out.LastEvaluatedKey ? positionOf(out.LastEvaluatedKey) : undefined };
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v instanceof Set ? [...(v as Set<unknown>)].map(String) : []);

/** A range of the account's own partition, `ACCOUNT#<openid>` / `<prefix>…`, in sort-key order. */
function accountRange(name: SectionName, prefix: string, toRecord: (item: Record<string, unknown>, reader: Reader, nowMs: number) => ExportRecord | undefined): Section {
  return {
    name,
    maxRequests: 1,
    accepts: (position) => position.length === 1 && position[0]!.startsWith(prefix),
    read: async (reader, position, room, nowMs) => {
      const pk = accountKeys.account(reader.user_id).pk;
      const { items, next } = await queryStep(
        { TableName: tableNames.hub, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)', ExpressionAttributeValues: { ':pk': pk, ':prefix': prefix } },
        position && { pk, sk: position[0] },
        room,
        (item) => [String(item.sk)],
      );
      return { records: items.map((item) => toRecord(item, reader, nowMs)).filter((r): r is ExportRecord => !!r), next, requests: 1 };
    },
  };
}

/** Keys one BatchGetItem reads at most: a step that reads its entries' items takes no more entries. */
const BATCH_GET_KEYS = 100;

/** A partition of a hub index (its entries oldest first), with `extra` reads (one BatchGet) of what the index does not hold. */
function indexRange(
  name: SectionName,
  index: 'gsi1' | 'gsi2',
  partitionOf: (openid: string) => string,
  toRecords: (items: Record<string, unknown>[]) => Promise<ExportRecord[]>,
  extra = 0,
): Section {
  const [partitionName, sortName] = [`${index}pk`, `${index}sk`];
  return {
    name,
    maxRequests: 1 + extra,
    accepts: (position) => position.length === 3,
    read: async (reader, position, room) => {
      const partition = partitionOf(reader.user_id);
      const { items, next } = await queryStep(
        { TableName: tableNames.hub, IndexName: index, KeyConditionExpression: '#p = :p', ExpressionAttributeNames: { '#p': partitionName }, ExpressionAttributeValues: { ':p': partition } },
        position && { pk: position[0], sk: position[1], [partitionName]: partition, [sortName]: position[2] },
        extra > 0 ? Math.min(room, BATCH_GET_KEYS) : room,
        (item) => [String(item.pk), String(item.sk), String(item[sortName])],
      );
      return { records: items.length === 0 ? [] : await toRecords(items), next, requests: 1 + (items.length === 0 ? 0 : extra) };
    },
  };
}

/** The account's key records, oldest first (consistent: a key just created is listed). */
const keysQuery = (openid: string): QueryCommandInput => ({
  TableName: tableNames.apiKeys,
  KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
  ExpressionAttributeValues: { ':pk': keyRecordKeys.userPartition(openid), ':prefix': keyRecordKeys.recordPrefix },
  ConsistentRead: true,
});
const keyPosition = (position: Position) => position.length === 1 && position[0]!.startsWith(keyRecordKeys.recordPrefix);

const keyRecord = (key: StoredKey, nowMs: number): ExportRecord => {
  // The allow-list of the key list (no key_hash), less what the record's type already says.
  const { user_id: _owner, key_prefix: _prefix, ...shown } = toPublicKey(key, nowMs);
  return { type: 'key', ...shown };
};

const SECTIONS: Section[] = [
  {
    name: 'key',
    // The records' Query, then their guards' last_used_at (one BatchGetItem: key-records.ts withLastUse).
    maxRequests: 2,
    accepts: keyPosition,
    read: async (reader, position, room, nowMs) => {
      const start = position && { pk: keyRecordKeys.userPartition(reader.user_id), sk: position[0] };
      const { items, next } = await queryStep(keysQuery(reader.user_id), start, room, (item) => [String(item.sk)]);
      const keys = await withLastUse(items as StoredKey[]);
      return { records: keys.map((key) => keyRecord(key, nowMs)), next, requests: keys.length === 0 ? 1 : 2 };
    },
  },
  {
    // One key per step: its record's Query (the key after `position`), then its usage of 30 days:
    // its guard's day counters (one GetItem) and the minute counters written before the guard
    // counted (one Query page in practice; 3 for a key used every minute of 30 days: 43,200 counters).
    name: 'key_usage',
    maxRequests: 5,
    accepts: keyPosition,
    read: async (reader, position, _room, nowMs) => {
      const start = position && { pk: keyRecordKeys.userPartition(reader.user_id), sk: position[0] };
      const { items, next } = await queryStep(keysQuery(reader.user_id), start, 1, (item) => [String(item.sk)]);
      const key = items[0] as StoredKey | undefined;
      if (!key) return { records: [], next: undefined, requests: 1 };
      const usage = await dailyKeyUsage(key, nowMs);
      const days = usage.days.filter((d) => d.requests > 0);
      return { records: [{ type: 'key_usage', key_id: key.id, days }], next, requests: 2 + usage.queries };
    },
  },
  accountRange('like', reactionKeys.likePrefix, (item) => ({ type: 'like', vid: String(item.vid), liked_at: String(item.liked_at) })),
  accountRange('dislike', reactionKeys.dislikePrefix, (item) => ({ type: 'dislike', vid: String(item.vid), disliked_at: String(item.disliked_at) })),
  indexRange(
    'comment',
    'gsi1',
    (openid) => commentKeys.commentsByAuthorIndex(openid, '', '').gsi1pk,
    async (items) =>
      (items as unknown as StoredComment[]).map((c) => ({ type: 'comment', cid: c.cid, vid: c.vid, seq: Number(c.seq), content: c.content, nickname: c.nickname, created_at: c.created_at })),
  ),
  // The reports the account filed (docs/moderation.md, "Reports"): the index holds their keys, the items come from one BatchGet.
  indexRange('report', 'gsi1', (openid) => reportKeys.reporterIndex(openid, '', '').gsi1pk, reportRecords, 1),
  accountRange('follow', followKeys.followsPrefix, (item) => ({ type: 'follow', openid: String(item.followee), followed_at: String(item.followed_at) })),
  accountRange('follower', followKeys.followerPrefix, (item) => ({ type: 'follower', openid: String(item.follower), followed_at: String(item.followed_at) })),
  {
    // The account's block list is one item (lib/entities/social/blocks.ts): its entries by openid, `room` at a time.
    name: 'block',
    maxRequests: 1,
    accepts: (position) => position.length === 1,
    read: async (reader, position, room) => {
      const item = (await db.send(new GetCommand({ TableName: tableNames.hub, Key: blockKeys.blockList(reader.user_id), ConsistentRead: true }))).Item;
      const entries = Object.entries((item?.blocked ?? {}) as Record<string, string>)
        .filter(([openid]) => !position || openid > position[0]!)
        .sort(([a], [b]) => (a < b ? -1 : 1));
      const page = entries.slice(0, room);
      return { records: page.map(([openid, at]) => ({ type: 'block', openid, blocked_at: at })), next: entries.length > room ? [page[page.length - 1]![0]] : undefined, requests: 1 };
    },
  },
  accountRange('view', feedKeys.historyPrefix, (item) => {
    // The vids ride in the index sort key: `<seen_at>#<vid>,<vid>,...` (lib/features/recommend/feed-state.ts).
    const seenAt = String(item.seen_at);
    return { type: 'view', seen_at: seenAt, vids: String(item.gsi1sk).slice(seenAt.length + 1).split(',').filter(Boolean) };
  }),
  // The recommender's state (taste, dislikes, latest likes) and the record of each feed call of the last 16 days.
  accountRange('feed', feedKeys.feedState('').sk, feedRecord),
  indexRange('share', 'gsi2', shareKeys.sharerPartition, shareRecords, 1),
  accountRange('invitation', accountKeys.invitePrefix, (item) => ({ type: 'invitation', openid: String(item.invitee), invited_at: String(item.created_at) })),
  indexRange(
    'video',
    'gsi2',
    (openid) => videoKeys.authorIndex(openid, '', '').gsi2pk,
    async (items) => items.map((v) => ({ type: 'video', vid: String(v.vid), tags: strings(v.tags), created_at: String(v.created_at) })),
  ),
  accountRange('held', heldKeys.prefix, (item) => {
    const held = item as unknown as HeldItem;
    return { type: 'held', target_type: held.target_type, target_id: held.target_id, fields: held.fields, text: held.text, held_at: held.at };
  }),
  accountRange('audit', auditKeys.auditPrefix, (item, reader) => {
    const { id, at, type, actor, details } = shownEntry(item as unknown as AuditEntry, reader);
    return { type: 'audit', id, at, action: type, actor, details };
  }),
];

/** The feed state item and the call records (lib/features/recommend/feed-state.ts), as the person can read them. */
function feedRecord(item: Record<string, unknown>, _reader: Reader, nowMs: number): ExportRecord | undefined {
  if (item.entity === 'feed_chunk') {
    const held = [...(Array.isArray(item.rv) ? item.rv : []), ...(Array.isArray(item.fq) ? item.fq : [])].flatMap((stored: unknown) => fromStoredEntry(stored)?.vid ?? []);
    return {
      type: 'feed_call',
      at: new Date(Number(item.at)).toISOString(),
      viewed: strings(item.v),
      served: strings(item.sv),
      refresh: item.rf === true,
      deferred: strings(item.wk),
      held,
    };
  }
  if (item.entity !== 'feed_state') return undefined;
  const state = parseFeedState(item, nowMs);
  const round = (n: number) => Number(n.toPrecision(6));
  return {
    type: 'feed_state',
    taste: Object.fromEntries([...state.tags].map(([tag, weight]) => [tag, round(weight)])),
    taste_total: round(state.tasteTotal),
    disliked: [...state.disliked],
    recent_likes: likedVids(item.lr),
    updated_at: typeof item.updated_at === 'string' ? item.updated_at : null,
  };
}

async function reportRecords(entries: Record<string, unknown>[]): Promise<ExportRecord[]> {
  const found = await batchGetHubItems(entries.map((e) => ({ pk: String(e.pk), sk: String(e.sk) })));
  return entries.flatMap((e) => {
    const r = reportFromItem(found.get(itemId({ pk: e.pk, sk: e.sk })));
    return r ? [{ type: 'report' as const, id: r.id, target_type: r.target_type, target_id: r.target_id, reason: r.reason, text: r.text, created_at: r.created_at, updated_at: r.updated_at }] : [];
  });
}

/** The index holds a share's keys and ids: its device, locale, country and counters come from the item (one BatchGet). */
async function shareRecords(entries: Record<string, unknown>[]): Promise<ExportRecord[]> {
  const found = await batchGetHubItems<StoredShare & { open_count?: number; preview_count?: number }>(entries.map((e) => ({ pk: String(e.pk), sk: String(e.sk) })));
  return entries.flatMap((e) => {
    const share = found.get(itemId({ pk: e.pk, sk: e.sk }));
    if (!share) return [];
    return [
      {
        type: 'share' as const,
        shareid: share.shareid,
        vid: share.vid,
        created_at: share.created_at,
        expires_at: new Date(share.ttl * 1000).toISOString(),
        d: share.d ?? '',
        locale: share.locale ?? '',
        country: share.country ?? '',
        open_count: Number(share.open_count ?? 0),
        preview_count: Number(share.preview_count ?? 0),
      },
    ];
  });
}

/** The account item as its owner may read it (all but the relation numbers get_follow pages by): the full phone, the roles and when each was last removed. */
function accountData(account: Account & { suspended_at?: string }): AccountData {
  const removed = Object.entries(account.roles_removed_at ?? {}).map(([role, ms]) => [role, new Date(Number(ms)).toISOString()]);
  return {
    openid: account.openid,
    phone: account.phone,
    nickname: account.nickname,
    signature: account.signature ?? '',
    city: account.city ?? '',
    roles: account.roles ?? [],
    roles_removed_at: Object.fromEntries(removed),
    created_at: account.created_at,
    updated_at: account.updated_at,
    invited_by: account.invited_by ?? null,
    suspended_at: account.suspended_at ?? null,
    terms_version: account.terms_version ?? null,
    terms_accepted_at: account.terms_accepted_at ?? null,
    follow_count: Number(account.follow_count ?? 0),
    follower_count: Number(account.follower_count ?? 0),
    like_count: Number(account.like_count ?? 0),
    liked_count: Number(account.liked_count ?? 0),
    video_count: Number(account.video_count ?? 0),
  };
}

interface DataCursor {
  /** The account. */
  u: string;
  /** The section the next page starts in, and where in it. */
  s: SectionName;
  p?: Position;
  /** generated_at of the first page: every page of one export shows it. */
  t: string;
}

async function openDataCursor(raw: string, openid: string): Promise<{ index: number; position: Position | undefined; generatedAt: string }> {
  const c = (await openCursor(CURSOR_PURPOSE, raw)) as Partial<DataCursor> | undefined;
  const index = SECTIONS.findIndex((s) => s.name === c?.s);
  const position = c?.p;
  const positionFits = position === undefined || (Array.isArray(position) && position.every((v) => typeof v === 'string') && index >= 0 && SECTIONS[index]!.accepts(position));
  // A cursor of another account continues nothing of this one.
  if (!c || c.u !== openid || index < 0 || typeof c.t !== 'string' || !positionFits) throw new ValidationError(BAD_CURSOR);
  return { index, position, generatedAt: c.t };
}

/** One page of the caller's data export (`?cursor=` continues it). */
export async function dataExportPage(reader: Reader, query: { cursor?: string }): Promise<DataExportPage> {
  const openid = reader.user_id;
  const nowMs = clock.now();
  const limit = config.DATA_EXPORT_PAGE_SIZE;
  const first = query.cursor === undefined || query.cursor === '';
  const start = first ? { index: 0, position: undefined, generatedAt: new Date(nowMs).toISOString() } : await openDataCursor(query.cursor!, openid);
  let index = start.index;
  let position: Position | undefined = start.position;

  let requests = 0;
  let account: AccountData | undefined;
  if (first) {
    const stored = await getAccount(openid, true);
    requests++;
    if (!stored) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
    account = accountData(stored);
  }

  const records: ExportRecord[] = [];
  while (index < SECTIONS.length && records.length < limit) {
    const section = SECTIONS[index]!;
    if (requests + section.maxRequests > PAGE_REQUESTS) break;
    const step = await section.read(reader, position, limit - records.length, nowMs);
    records.push(...step.records);
    requests += step.requests;
    position = step.next;
    if (!position) index++;
  }
  const next_cursor = index < SECTIONS.length ? await signCursor(CURSOR_PURPOSE, { u: openid, s: SECTIONS[index]!.name, ...(position && { p: position }), t: start.generatedAt } satisfies DataCursor) : null;
  return { format: DATA_EXPORT_FORMAT, generated_at: start.generatedAt, ...(account && { account }), records, next_cursor };
}

/** The sections in the order a page reads them (docs/protected-api.md, "Download my data"). */
export const SECTION_ORDER: readonly SectionName[] = SECTIONS.map((s) => s.name);

// Long by nature: the account entity whole: its keys, item, its checked parse and views, and every
// write to it (sign-in by phone, roles with their removal stamps and audit events, profile fields,
// counters and relation numbers, suspension, deletion and the tombstone). No other module names the
// account item's attributes in a write (test/unit/key-ownership.test.ts, "item ownership").
import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ROLES, type Role } from './roles.js';
import { clock } from '../../platform/clock.js';
import { storedCount } from '../../platform/db/attributes.js';
import { batchGetHubItems, itemId } from '../../platform/db/batch.js';
import { db, isConditionalCheckFailed, tableNames } from '../../platform/db/client.js';
import { retryTransient } from '../../platform/db/failures.js';
import { itemParser } from '../../platform/db/item-check.js';
import { logger } from '../../platform/logger.js';
import { cancellationCode, retryOnConflict, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { newOpenid, randomDigits } from '../../platform/ids.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { isAdminPhone, maskPhone } from '../../platform/sms/phone.js';
import { timeKey, shardKey, allShards, SHARDS } from '../../platform/db/keys.js';
import type * as z from '../../platform/zod.js';
import type { ownProfileSchema, publicUserSchema } from './profile-schema.js';

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const accountKeys = {
  /** The profile and its counters. gsi1: ACCOUNTS#k / created_at#openid (export of all accounts; k from the openid). */
  account: (openid: string) => ({ pk: `ACCOUNT#${openid}`, sk: 'PROFILE' }),
  accountsIndex: (createdAt: string, openid: string) => ({ gsi1pk: shardKey('ACCOUNTS', openid, SHARDS.accounts), gsi1sk: timeKey(createdAt, openid) }),
  /** phone (E.164) -> openid; written with the account in one transaction, so a phone has one account. */
  phone: (e164: string) => ({ pk: `PHONE#${e164}`, sk: 'ACCOUNT' }),
  /** An invitation recorded once per new account. */
  invite: (inviter: string, invitee: string) => ({ pk: `ACCOUNT#${inviter}`, sk: `INVITED#${invitee}` }),
  /** The sort-key prefix of the invitations an account made, in its partition. */
  invitePrefix: 'INVITED#',
  /**
   * A mark of content the account wrote outside its partition (a comment, a report, a share), put in
   * the same transaction as the content: the erasure finds it with a consistent read of the
   * partition where an eventually consistent index may not show the content yet (contentMarkItem).
   */
  contentMark: (openid: string, kind: ContentKind, ref: string) => ({ pk: `ACCOUNT#${openid}`, sk: `MARK#${kind}#${ref}` }),
  contentMarkPrefix: 'MARK#',
};

/**
 * The person behind an account, across its re-creation (docs/accounts.md, "The person id"): a
 * domain-separated SHA-256 of the E.164 phone, 132 bits in base64url. What protects other people
 * against a person (the report and comment windows, blocks) is keyed by it, so deleting the account
 * and signing in again with the same phone escapes none of it. Not a keyed hash: the project has no
 * server secret that never rotates (the signing secrets do), and a rotation would let every window
 * and block go. It is pseudonymous, not anonymous (the phone numbers can be enumerated): kept only
 * with the window or block it serves.
 */
export const personIdOf = (e164: string): string => `p_${createHash('sha256').update(`expohub/person/v1\n${e164}`).digest('base64url').slice(0, 22)}`;

/** The person id of a live account (from its phone); undefined for a deleted one, whose phone is gone. */
export const personOf = (account: Pick<Account, 'phone'> | undefined): string | undefined => (account?.phone ? personIdOf(account.phone) : undefined);

/** The kinds of content an account writes outside its partition, each found by an index when erased. */
export type ContentKind = 'comment' | 'report' | 'share';

/**
 * How long a content mark lives: it only has to outlive the lag of the index the erasure reads
 * (normally under a second); content older than this is in the index.
 */
const CONTENT_MARK_TTL_S = 86_400;

/**
 * The mark of content `ref` of `kind` (what the erasure needs to reach it is in `fields`) as a
 * transaction item of the transaction that writes the content (docs/accounts.md, "Erasure").
 */
export function contentMarkItem(openid: string, kind: ContentKind, ref: string, fields: Record<string, unknown>, nowMs: number): TransactItem {
  return {
    Put: {
      TableName: TABLE(),
      Item: { ...accountKeys.contentMark(openid, kind, ref), entity: 'content_mark', kind, ...fields, ttl: Math.ceil(nowMs / 1000) + CONTENT_MARK_TTL_S },
    },
  };
}

/** The condition every write a person makes puts on their account item: it exists and is not deleted. */
export const LIVE_ACCOUNT = 'attribute_exists(pk) AND attribute_not_exists(deleted_at)';

/**
 * The account check of a transaction that writes on `openid`'s behalf (docs/accounts.md, "Erasure"):
 * the transaction either commits before the deletion's or is refused here. For a transaction that
 * updates the account item anyway, LIVE_ACCOUNT goes on that update instead.
 */
export function liveAccountCheck(openid: string, condition = LIVE_ACCOUNT): TransactItem {
  return { ConditionCheck: { TableName: TABLE(), Key: accountKeys.account(openid), ConditionExpression: condition } };
}

/** The condition of a write that does not need the account item, only that it is not a deleted account's (sign-out). */
export const NOT_DELETED = 'attribute_not_exists(deleted_at)';

/** The condition of a write that must not create the account item (an ADD would make a stub), deleted or not. */
export const ACCOUNT_EXISTS = 'attribute_exists(pk)';

/** The condition of a write an account may make only while neither suspended nor deleted (a key's creation). */
export const NOT_SUSPENDED_OR_DELETED = 'attribute_not_exists(suspended_at) AND attribute_not_exists(deleted_at)';

/** A live account that is not suspended (a held profile field's approval). */
export const LIVE_UNSUSPENDED_ACCOUNT = `${LIVE_ACCOUNT} AND attribute_not_exists(suspended_at)`;

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const accountPartitions = {
  accounts: allShards('ACCOUNTS', SHARDS.accounts),
};


/** The account item: profile, stored roles and the counters kept exact by the writers of each fact. */
export interface Account {
  openid: string;
  phone: string;
  nickname: string;
  signature: string;
  city: string;
  roles: Role[];
  /**
   * When each removed role was last removed (epoch ms): a JWT issued before that instant can no
   * longer use the role, even after it is granted again (docs/protected-api.md, "Roles").
   */
  roles_removed_at?: Partial<Record<Role, number>>;
  created_at: string;
  updated_at: string;
  /** Users I follow / who follow me (follow_user, unfollow_user). */
  follow_count: number;
  follower_count: number;
  /** Videos I like (like, dislike) / likes received on my videos / videos I published. */
  like_count: number;
  liked_count: number;
  video_count: number;
  /** Relation numbers handed out so far (see follows.ts): positions of get_follow / get_follower. */
  follow_seq: number;
  follower_seq: number;
  invited_by?: string;
  /** The terms version the account last accepted, and when (docs/moderation.md, "Terms and contact"). */
  terms_version?: string;
  terms_accepted_at?: string;
  /** Set while the account is suspended (lib/features/admin/suspension.ts), by whom. */
  suspended_at?: string;
  suspended_by?: string;
  /** Set when the account was deleted (lib/features/deletion/deletion.ts): its sessions and keys are refused, its profile is in no list. */
  deleted_at?: string;
  deletion_id?: string;
}

/** The counters of an account item, each moved by the writer of its fact (accountCounterUpdate). */
export type AccountCounter = 'follow_count' | 'follower_count' | 'like_count' | 'liked_count' | 'video_count';

/** The relation numbers an account hands out (lib/entities/social/follows.ts: the positions of get_follow / get_follower). */
export type AccountSequence = 'follow_seq' | 'follower_seq';

/**
 * The checked parse of an account item (a live account, or a deleted one: a tombstone keeps only
 * openid, deleted_at and deletion_id). Undefined when there is no item.
 */
export const accountFromItem = itemParser<Account>('account', {
  entity: ['account', 'deleted_account'],
  required: { openid: 'string' },
  optional: {
    phone: 'string',
    nickname: 'string',
    signature: 'string',
    city: 'string',
    roles: 'list',
    roles_removed_at: 'map',
    created_at: 'string',
    follow_count: 'number',
    follower_count: 'number',
    like_count: 'number',
    liked_count: 'number',
    video_count: 'number',
    follow_seq: 'number',
    follower_seq: 'number',
    deleted_at: 'string',
  },
});

/** The checked parse of a phone's link to its account. */
const phoneLinkFromItem = itemParser<{ openid: string }>('phone link', { entity: 'phone', required: { openid: 'string' } });

/** The account of `openid` among the items of a BatchGet that asked for its key (undefined when not found). */
export const accountIn = (found: ReadonlyMap<string, Record<string, unknown>>, openid: string): Account | undefined => accountFromItem(found.get(itemId(accountKeys.account(openid))));

/** The caller's own profile (get_fav, change_*): the phone only masked. */
export type OwnProfile = z.output<typeof ownProfileSchema>;

export type PublicProfile = Omit<OwnProfile, 'phone'>;

/** A user in any list (docs/hub-api.md, "Rules shared by every operation"). */
export type PublicUser = z.output<typeof publicUserSchema>;

const TABLE = () => tableNames.hub;

export function publicProfile(account: Account): PublicProfile {
  return {
    openid: account.openid,
    nickname: account.nickname,
    signature: account.signature ?? '',
    city: account.city ?? '',
    follow_count: storedCount(account.follow_count),
    follower_count: storedCount(account.follower_count),
    like_count: storedCount(account.like_count),
    liked_count: storedCount(account.liked_count),
    video_count: storedCount(account.video_count),
  };
}

export function ownProfile(account: Account): OwnProfile {
  const { openid, nickname, signature, city, ...counters } = publicProfile(account);
  return { openid, nickname, signature, city, phone: maskPhone(account.phone), ...counters };
}

export function publicUser(account: Account, relation: { followed_by_me: boolean; follows_me: boolean }): PublicUser {
  return {
    openid: account.openid,
    nickname: account.nickname,
    signature: account.signature ?? '',
    city: account.city ?? '',
    followed_by_me: relation.followed_by_me,
    follows_me: relation.follows_me,
  };
}

/** Whether an account item is a deleted account (from the request on, lib/features/deletion/deletion.ts; a tombstone once erased). */
export const isDeleted = (account: Pick<Account, 'deleted_at'> | undefined): boolean => typeof account?.deleted_at === 'string';

export async function getAccount(openid: string, consistent = false): Promise<Account | undefined> {
  const out = await db.send(new GetCommand({ TableName: TABLE(), Key: accountKeys.account(openid), ConsistentRead: consistent }));
  return accountFromItem(out.Item);
}

/** The account or 404 (a deleted account too), naming the parameter that carried the openid. */
export async function requireAccount(openid: string, what = 'User'): Promise<Account> {
  const account = await getAccount(openid, true);
  if (!account || isDeleted(account)) throw new NotFoundError(`${what} "${openid.slice(0, 64)}" does not exist`);
  return account;
}

/** Several accounts with BatchGet; unknown openids and deleted accounts are simply absent from the map. */
export async function getAccounts(openids: string[]): Promise<Map<string, Account>> {
  const items = await batchGetHubItems(openids.map((o) => accountKeys.account(o)));
  const out = new Map<string, Account>();
  for (const openid of openids) {
    const account = accountIn(items, openid);
    if (account && !isDeleted(account)) out.set(openid, account);
  }
  return out;
}

/**
 * Replaces an account's stored roles (a subset of admin/editor), audited as a change by `actor`
 * (the benches' fixtures; people change roles through lib/features/admin/set-roles.ts).
 */
export async function setAccountRoles(openid: string, roles: readonly string[], actor = 'system'): Promise<Account> {
  return (await replaceAccountRolesAudited(openid, roles, roleChangeBy(actor, openid))).account;
}

/** The audit event of a role change of `openid` by `actor` (an openid, `admin-cli`, `system`) through `via`, from the roles before and after. */
export const roleChangeBy =
  (actor: string, openid: string, via = actor) =>
  (rolesBefore: Role[], rolesAfter: Role[]): AuditEvent => ({ action: 'role.changed', actor, via, subject: openid, roles_before: rolesBefore, roles_after: rolesAfter });

/** The stamps of the roles `after` drops from `before`, merged into the stamps already stored. */
export function rolesRemovedAt(account: Pick<Account, 'roles_removed_at'>, before: readonly Role[], after: readonly Role[], nowMs: number): Partial<Record<Role, number>> {
  const stamps = { ...account.roles_removed_at };
  for (const role of before) if (!after.includes(role)) stamps[role] = nowMs;
  return stamps;
}

/** Sets one profile field (nickname, signature, city) and returns the updated account. */
export async function setProfileField(openid: string, field: 'nickname' | 'signature' | 'city', value: string): Promise<Account> {
  return updateAccount(openid, 'SET #field = :value, updated_at = :now', { '#field': field }, { ':value': value });
}

async function updateAccount(
  openid: string,
  expression: string,
  names: Record<string, string>,
  values: Record<string, unknown>,
): Promise<Account> {
  const attributes = await updateLiveAccount(openid, {
    UpdateExpression: expression,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: { ':now': clock.nowIso(), ...values },
    ReturnValues: 'ALL_NEW',
  });
  return accountFromItem(attributes)!;
}

/**
 * One update of a live account's item (never a deleted account's: its tombstone stays bare,
 * docs/accounts.md, "Erasure"), retried on a transaction conflict; 404 when the account is deleted or
 * absent. Returns the attributes the update asked for.
 */
async function updateLiveAccount(
  openid: string,
  update: Pick<UpdateCommandInput, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues' | 'ReturnValues'>,
): Promise<Record<string, unknown> | undefined> {
  try {
    const out = await retryOnConflict(() =>
      db.send(new UpdateCommand({ TableName: TABLE(), Key: accountKeys.account(openid), ConditionExpression: LIVE_ACCOUNT, ...update })),
    );
    return out.Attributes;
  } catch (error) {
    if (isConditionalCheckFailed(error)) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
    throw error;
  }
}

/**
 * Replaces an account's stored roles together with the audit event of the change, in one
 * transaction conditioned on the roles read just before (a change that lands in between makes it
 * read again): no change without its event, no event without its change. Setting the roles the
 * account already holds writes nothing and stores no event (a retried request stores it once).
 * `eventOf` builds the event from the roles before and after.
 */
export async function replaceAccountRolesAudited(
  openid: string,
  roles: readonly string[],
  eventOf: (rolesBefore: Role[], rolesAfter: Role[]) => AuditEvent,
): Promise<{ account: Account; rolesBefore: Role[]; changed: boolean }> {
  const unique = [...new Set(roles)] as Role[];
  const unknown = unique.filter((r) => !(ROLES as readonly string[]).includes(r));
  if (unknown.length > 0) throw new ValidationError(`Invalid parameter "roles": unknown role "${unknown[0]}"; allowed: ${ROLES.join(', ')}`);
  for (let attempt = 0; attempt < 5; attempt++) {
    const account = await getAccount(openid, true);
    if (!account || isDeleted(account)) throw new NotFoundError(`User "${openid.slice(0, 64)}" does not exist`);
    const before = account.roles;
    const rolesBefore = before ?? [];
    if (rolesBefore.length === unique.length && rolesBefore.every((r) => unique.includes(r))) return { account, rolesBefore, changed: false };
    const now = clock.now();
    const event = eventOf(rolesBefore, unique);
    try {
      await transactWrite([
        {
          Update: {
            TableName: TABLE(),
            Key: accountKeys.account(openid),
            // A removed role is stamped with its removal: tokens issued before it lose the role for good.
            UpdateExpression: 'SET #roles = :roles, roles_removed_at = :removed, updated_at = :now',
            ConditionExpression: `${LIVE_ACCOUNT} AND ${before === undefined ? 'attribute_not_exists(#roles)' : '#roles = :before'}`,
            ExpressionAttributeNames: { '#roles': 'roles' },
            ExpressionAttributeValues: {
              ':roles': unique,
              ':removed': rolesRemovedAt(account, rolesBefore, unique, now),
              ':now': new Date(now).toISOString(),
              ...(before === undefined ? {} : { ':before': before }),
            },
          },
        },
        auditItem(event, now),
      ]);
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') continue;
      throw error;
    }
    writeAuditLine(event);
    return { account: { ...account, roles: unique, updated_at: new Date(now).toISOString() }, rolesBefore, changed: true };
  }
  throw Object.assign(new Error('roles changed concurrently too often'), { name: 'TransactionConflictException' });
}

/** Adds `admin` to an account's stored roles, as a transaction item; its condition fails when the account already has it. */
function addAdminRoleItem(openid: string): TransactItem {
  return {
    Update: {
      TableName: TABLE(),
      Key: accountKeys.account(openid),
      UpdateExpression: 'SET #roles = list_append(if_not_exists(#roles, :none), :admin), updated_at = :now',
      ConditionExpression: 'attribute_exists(pk) AND NOT contains(#roles, :role)',
      ExpressionAttributeNames: { '#roles': 'roles' },
      ExpressionAttributeValues: { ':none': [], ':admin': ['admin'], ':role': 'admin', ':now': clock.nowIso() },
    },
  };
}

/** The openid of the account a phone (E.164) signs in to, if any. */
export async function accountIdOfPhone(phone: string): Promise<string | undefined> {
  const link = await db.send(new GetCommand({ TableName: TABLE(), Key: accountKeys.phone(phone), ConsistentRead: true }));
  return phoneLinkFromItem(link.Item)?.openid;
}

/** Whether one of the items `from..to` (exclusive) of a cancelled transaction failed its condition. */
const failedWithin = (error: unknown, from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i).some((i) => cancellationCode(error, i) === 'ConditionalCheckFailed');

/** Thrown by signInByPhone when the guard item's condition failed (e.g. the SMS code was spent). */
export class SignInGuardFailed extends Error {
  constructor() {
    super('sign-in guard failed');
    this.name = 'SignInGuardFailed';
  }
}

export interface SignInOptions {
  /** A transaction item that must succeed with the sign-in (spending the SMS code). */
  guard: TransactItem;
  /**
   * More items written in the same transaction (ending the device's previous session and its audit
   * event, moving the person's blocks to the account), given the account's openid; built again for
   * each try, and a failed condition among them makes the sign-in try again.
   */
  also?: (openid: string) => TransactItem[] | Promise<TransactItem[]>;
  /** A live account's openid to record as the inviter of a NEW account (ignored when it is deleted by then). */
  inviter?: string;
  /** The terms version the client showed (create_phone_account's terms_version): recorded, with its audit event, unless already the account's. */
  terms?: string;
}

export const termsAcceptedEvent = (openid: string, version: string, via: string): AuditEvent => ({ action: 'terms.accepted', actor: openid, subject: openid, via, terms_version: version });

/** The account item's update recording an accepted terms version (docs/moderation.md, "Terms and contact"): a transaction item. */
export function acceptTermsItem(openid: string, version: string, atIso: string): TransactItem {
  return {
    Update: {
      TableName: TABLE(),
      Key: accountKeys.account(openid),
      UpdateExpression: 'SET terms_version = :v, terms_accepted_at = :at',
      ConditionExpression: LIVE_ACCOUNT,
      ExpressionAttributeValues: { ':v': version, ':at': atIso },
    },
  };
}

/** A new account record: every counter at zero, no roles unless given. */
export function accountRecord(
  fields: Pick<Account, 'openid' | 'phone' | 'nickname' | 'created_at'> & Partial<Pick<Account, 'signature' | 'city' | 'roles'>>,
): Account {
  return {
    signature: '',
    city: '',
    roles: [],
    ...fields,
    updated_at: fields.created_at,
    follow_count: 0,
    follower_count: 0,
    like_count: 0,
    liked_count: 0,
    video_count: 0,
    follow_seq: 0,
    follower_seq: 0,
  };
}

/** The stored item of an account: its key, its place in the accounts export index, the record. */
export function accountItem(account: Account) {
  return { ...accountKeys.account(account.openid), ...accountKeys.accountsIndex(account.created_at, account.openid), entity: 'account', ...account };
}

function newAccount(phone: string, nowIso: string): Account {
  return accountRecord({
    openid: newOpenid(),
    phone,
    // A default name that says nothing about the phone.
    nickname: `用户${randomDigits(6)}`,
    roles: isAdminPhone(phone) ? ['admin'] : [],
    created_at: nowIso,
  });
}

/**
 * Create-or-get by phone. A new account, its phone item (the uniqueness guard), the invite record,
 * the guard and the `also` items are written in ONE transaction: a phone never points to a missing
 * account, the same phone always reaches the same account, and a failure leaves the code unspent.
 * An existing account is signed in by the guard and the `also` items alone, plus the admin role when
 * its phone is in ADMIN_PHONES and it lacks the role.
 */
export async function signInByPhone(phone: string, options: SignInOptions): Promise<{ account: Account; created: boolean }> {
  let inviterGone = false;
  for (let attempt = 0; attempt < 3; attempt++) {
    const existingId = await accountIdOfPhone(phone);
    if (existingId) {
      const account = await getAccount(existingId, true);
      if (!account) throw new Error('phone item points to a missing account');
      // A phone added to ADMIN_PHONES after its account was created: admin from this sign-in on.
      const promote = isAdminPhone(phone) && !(account.roles ?? []).includes('admin');
      const roles: Role[] = [...(account.roles ?? []), 'admin'];
      const promotion: AuditEvent = { action: 'role.changed', actor: 'sign-in', via: 'ADMIN_PHONES', subject: account.openid, roles_before: account.roles ?? [], roles_after: roles };
      const accepted = options.terms !== undefined && options.terms !== account.terms_version ? termsAcceptedEvent(account.openid, options.terms, 'sign-in') : undefined;
      const acceptedAt = clock.nowIso();
      const terms = accepted ? [acceptTermsItem(account.openid, accepted.terms_version!, acceptedAt), auditItem(accepted)] : [];
      // The promotion's event sits before its condition item, which stays last.
      const also = (await options.also?.(account.openid)) ?? [];
      const items = [options.guard, ...also, ...terms, ...(promote ? [auditItem(promotion), addAdminRoleItem(account.openid)] : [])];
      try {
        await transactWrite(items);
      } catch (error) {
        if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw new SignInGuardFailed();
        // An `also` item's condition failed (what it was built from changed): build them again.
        if (failedWithin(error, 1, 1 + also.length)) continue;
        // The account gained the admin role meanwhile: sign in again without adding it.
        if (promote && cancellationCode(error, items.length - 1) === 'ConditionalCheckFailed') continue;
        throw error;
      }
      if (accepted) writeAuditLine(accepted);
      const signedIn = accepted ? { ...account, terms_version: accepted.terms_version, terms_accepted_at: acceptedAt } : account;
      if (!promote) return { account: signedIn, created: false };
      writeAuditLine(promotion);
      return { account: { ...signedIn, roles }, created: false };
    }

    const nowIso = clock.nowIso();
    const account = newAccount(phone, nowIso);
    // An inviter deleted since the read (its erasure may have emptied its partition): the condition below drops it.
    const inviter = options.inviter && options.inviter !== account.openid && !inviterGone ? options.inviter : undefined;
    if (inviter) account.invited_by = inviter;
    const accepted = options.terms === undefined ? undefined : termsAcceptedEvent(account.openid, options.terms, 'sign-in');
    if (accepted) Object.assign(account, { terms_version: options.terms, terms_accepted_at: nowIso });
    const items: TransactItem[] = [
      options.guard,
      {
        Put: {
          TableName: TABLE(),
          Item: { ...accountKeys.phone(phone), entity: 'phone', openid: account.openid },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName: TABLE(),
          Item: accountItem(account),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
    if (inviter) {
      // The inviter must be a live account when the invitation lands in its partition: a deleted
      // inviter is ignored, as an unknown one is (docs/hub-api.md, "create_phone_account").
      items.push(liveAccountCheck(inviter));
      items.push({
        Put: {
          TableName: TABLE(),
          Item: { ...accountKeys.invite(inviter, account.openid), entity: 'invite', inviter, invitee: account.openid, created_at: nowIso },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      });
    }
    const alsoFrom = items.length;
    const also = (await options.also?.(account.openid)) ?? [];
    items.push(...also, ...(accepted ? [auditItem(accepted)] : []));
    try {
      await transactWrite(items);
      if (accepted) writeAuditLine(accepted);
      return { account, created: true };
    } catch (error) {
      if (cancellationCode(error, 0) === 'ConditionalCheckFailed') throw new SignInGuardFailed();
      // Another request created this phone's account first: sign in to that one.
      if (cancellationCode(error, 1) === 'ConditionalCheckFailed') continue;
      // The inviter was deleted meanwhile: the account is created without the invitation.
      if (inviter && cancellationCode(error, 3) === 'ConditionalCheckFailed') {
        inviterGone = true;
        continue;
      }
      if (failedWithin(error, alsoFrom, alsoFrom + also.length)) continue;
      throw error;
    }
  }
  throw new Error('could not resolve the account of a phone');
}

/**
 * The account item's counters moved by `deltas` (a like, a follow, a published or removed video, a
 * block ending relations), as a transaction item conditional on `condition`. A new fact uses LIVE_ACCOUNT (it never reaches a deleted account:
 * its tombstone stays bare, docs/accounts.md, "Erasure"), taking one back ACCOUNT_EXISTS (an ADD
 * must never create a stub account). At least one delta must be non-zero.
 */
export function accountCounterUpdate(openid: string, deltas: Partial<Record<AccountCounter, number>>, condition: string = LIVE_ACCOUNT): TransactItem {
  const moved = (Object.entries(deltas) as [AccountCounter, number][]).filter(([, d]) => d !== 0);
  if (moved.length === 0) throw new Error('accountCounterUpdate: no counter moves (accountCountersOrCheck checks only)');
  return {
    Update: {
      TableName: TABLE(),
      Key: accountKeys.account(openid),
      UpdateExpression: `ADD ${moved.map(([c]) => `${c} :${c}`).join(', ')}`,
      ConditionExpression: condition,
      ExpressionAttributeValues: Object.fromEntries(moved.map(([c, d]) => [`:${c}`, d])),
    },
  };
}

/**
 * A counter of the account that follows from the table's stream (lib/features/streams/counters.ts
 * sums such deltas per item into one update): the likes its videos received.
 */
export const accountCounterDelta = (openid: string, counter: 'liked_count', delta: number) => ({ key: accountKeys.account(openid), attribute: counter, delta });

/** accountCounterUpdate, or only the account's check (liveAccountCheck) when no delta moves a counter (a block that ended no relation). */
export const accountCountersOrCheck = (openid: string, deltas: Partial<Record<AccountCounter, number>>, condition: string): TransactItem =>
  Object.values(deltas).some((d) => d !== 0) ? accountCounterUpdate(openid, deltas, condition) : liveAccountCheck(openid, condition);

/** accountCounterUpdate as a write of its own (UpdateItem), for writers outside a transaction (a catalog import). */
export async function addToAccountCounters(openid: string, deltas: Partial<Record<AccountCounter, number>>, condition: string = LIVE_ACCOUNT): Promise<void> {
  const item = accountCounterUpdate(openid, deltas, condition);
  if (item.Update) await db.send(new UpdateCommand(item.Update));
}

/**
 * Takes the account's next relation number of `sequence` (atomic ADD; lib/entities/social/follows.ts
 * numbers each side of a follow with it). Never on a deleted account: 404.
 */
export async function takeRelationNumber(openid: string, sequence: AccountSequence): Promise<number> {
  const attributes = await updateLiveAccount(openid, {
    UpdateExpression: 'ADD #c :one',
    ExpressionAttributeNames: { '#c': sequence },
    ExpressionAttributeValues: { ':one': 1 },
    ReturnValues: 'UPDATED_NEW',
  });
  return Number(attributes?.[sequence]);
}

/**
 * Gives back relation number `n` taken for a follow that was not written, unless a later follow
 * took the next one (then the number stays skipped: numbers must never repeat). Retried, as it runs
 * right after a failure; if it still fails the number stays skipped too.
 */
export async function giveBackRelationNumber(openid: string, sequence: AccountSequence, n: number): Promise<void> {
  await retryTransient(() =>
    db.send(
      new UpdateCommand({
        TableName: TABLE(),
        Key: accountKeys.account(openid),
        UpdateExpression: 'ADD #c :minus',
        ConditionExpression: '#c = :n',
        ExpressionAttributeNames: { '#c': sequence },
        ExpressionAttributeValues: { ':minus': -1, ':n': n },
      }),
    ),
  ).catch((error: Error) => {
    if (!isConditionalCheckFailed(error)) logger.warn('relation number not given back', { counter: sequence, errorName: error.name });
  });
}

/**
 * The account item's suspension (lib/features/admin/suspension.ts) set by `by` at `nowIso`, or
 * lifted, as a transaction item: it fails when the account is already in that state, deleted, or
 * does not exist.
 */
export function suspensionUpdate(openid: string, suspend: boolean, by: string, nowIso: string): TransactItem {
  return {
    Update: {
      TableName: TABLE(),
      Key: accountKeys.account(openid),
      ...(suspend
        ? {
            UpdateExpression: 'SET suspended_at = :now, suspended_by = :by',
            ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(suspended_at) AND attribute_not_exists(deleted_at)',
            ExpressionAttributeValues: { ':now': nowIso, ':by': by },
          }
        : { UpdateExpression: 'REMOVE suspended_at, suspended_by', ConditionExpression: 'attribute_exists(pk) AND attribute_exists(suspended_at) AND attribute_not_exists(deleted_at)' }),
    },
  };
}

/** A held profile field's approved value (lib/features/filter/held.ts) set on a live, unsuspended account, as a transaction item. */
export function profileFieldUpdate(openid: string, field: 'nickname' | 'signature' | 'city', value: string, nowIso: string): TransactItem {
  return {
    Update: {
      TableName: TABLE(),
      Key: accountKeys.account(openid),
      UpdateExpression: 'SET #field = :value, updated_at = :now',
      ConditionExpression: LIVE_UNSUSPENDED_ACCOUNT,
      ExpressionAttributeNames: { '#field': field },
      ExpressionAttributeValues: { ':value': value, ':now': nowIso },
    },
  };
}

/**
 * The account's deletion request (lib/features/deletion/deletion.ts) as a transaction item: out of
 * the accounts export at once (its index keys go), the profile's text erased, the phone and the
 * inviter gone; refused for an account that does not exist or is deleted already.
 */
export function deletionRequestUpdate(openid: string, deletionId: string, nowIso: string): TransactItem {
  return {
    Update: {
      TableName: TABLE(),
      Key: accountKeys.account(openid),
      UpdateExpression: 'SET deleted_at = :now, deletion_id = :id, nickname = :empty, signature = :empty, city = :empty, updated_at = :now REMOVE gsi1pk, gsi1sk, phone, invited_by',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
      ExpressionAttributeValues: { ':now': nowIso, ':id': deletionId, ':empty': '' },
    },
  };
}

/** The phone's link to `openid` removed (a deletion: the phone then signs in to a new account), unless it points to another account. */
export function phoneLinkRelease(phone: string, openid: string): TransactItem {
  return {
    Delete: {
      TableName: TABLE(),
      Key: accountKeys.phone(phone),
      ConditionExpression: 'attribute_not_exists(pk) OR openid = :me',
      ExpressionAttributeValues: { ':me': openid },
    },
  };
}

/**
 * The tombstone of an erased account (lib/features/deletion/erasure.ts): no personal data; kept
 * until `ttl` (epoch seconds) while a token issued before the deletion may live, so that every one
 * of them stays refused (lib/features/auth/jwt.ts reads `deleted_at`). A transaction item.
 */
export function tombstonePut(openid: string, deletedAt: string, deletionId: string, ttl: number): TransactItem {
  return {
    Put: {
      TableName: TABLE(),
      Item: { ...accountKeys.account(openid), entity: 'deleted_account', openid, deleted_at: deletedAt, deletion_id: deletionId, ttl },
    },
  };
}

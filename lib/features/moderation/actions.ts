// The moderators' actions on a reported target: each decision, its content change and its audit event
// in one transaction (docs/moderation.md, "Moderation").
import * as z from '../../platform/zod.js';
import { dropSharedHeads } from '../../entities/catalog/shared-heads.js';
import type { Principal } from '../auth/principal.js';
import { ACCOUNT_EXISTS, accountCounterUpdate, getAccount, isDeleted } from '../../entities/accounts/accounts.js';
import { changeSuspension } from '../admin/suspension.js';
import { auditItem, writeAuditLine, type AuditEvent } from '../../platform/audit/trail.js';
import { authorLatestIn, authorLatestRemoval, getVideo, removedVideoPut, videoDelete, videoTagDeletes } from '../../entities/catalog/videos.js';
import { videoKeys, type VideoItem } from '../../entities/catalog/video-items.js';
import { clock } from '../../platform/clock.js';
import { findComment, tombstoneUpdate } from '../../entities/comments/comments.js';
import { batchGetHubItems } from '../../platform/db/batch.js';
import { conditionFailed, transactWrite, type TransactItem } from '../../platform/db/transact.js';
import { ForbiddenError, NotFoundError, UnavailableError, ValidationError } from '../../platform/errors.js';
import { approveHeld, discardHeld } from '../filter/held.js';
import { parseHeldId } from '../filter/held-items.js';
import { closeCaseItem, getCase, type Decision, type StoredCase } from '../report/reports.js';
import { TARGET_TYPES, type Target } from '../report/targets.js';
import { checkedText } from '../../platform/text.js';

export const MODERATION_ACTIONS = ['remove', 'dismiss', 'suspend', 'approve'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];
export const MAX_NOTE = 500;
/** What an action is taken on: a reported target, or held content named by its held id (docs/moderation.md, "Moderation"). */
export const ACTION_TARGET_TYPES = [...TARGET_TYPES, 'held'] as const;

/** Keys of the hub table owned by this module (docs/data-model.md, "Access patterns"). */
export const moderationKeys = {
  /** A video a moderator removed: its fields as they were, out of every list (the video item is gone). */
  removedVideo: videoKeys.removed,
};

export const actionBodySchema = z.strictBody({
  target: z.strictObject({
    type: z.enum(ACTION_TARGET_TYPES, { error: `must be one of ${ACTION_TARGET_TYPES.join(', ')}` }),
    id: checkedText(z.string({ error: 'is required' }).check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(128, 'must be at most 128 characters'))),
  }),
  action: z.enum(MODERATION_ACTIONS, { error: `must be one of ${MODERATION_ACTIONS.join(', ')}` }),
  note: z.optional(checkedText(z.string().check(z.trim(), z.maxLength(MAX_NOTE, `must be at most ${MAX_NOTE} characters`)), true)),
});
export type ActionBody = z.output<typeof actionBodySchema>;

/** What an action answers, the first time and on every repeat (POST /api/v1/moderation/actions). */
export const actionResult = z.object({
  target: z.object({ type: z.enum(ACTION_TARGET_TYPES), id: z.string() }),
  action: z.enum(MODERATION_ACTIONS),
  state: z.enum(['actioned', 'dismissed']),
  outcome: z.union([z.enum(['content_removed', 'author_suspended', 'content_approved']), z.null()]),
  /** The open reports the decision closed (each reporter sees the outcome in my_reports). */
  reports: z.number(),
  decided_at: z.string(),
  /** Held content only: what the held item was, by the id the content has now (an approved comment's new cid). */
  content: z.optional(z.object({ type: z.enum(TARGET_TYPES), id: z.string() })),
});
export type ActionResult = z.output<typeof actionResult>;

/** What one action changes besides the case: its items, its audit event, or another way to commit. */
interface Plan {
  state: Decision['state'];
  outcome: Decision['outcome'];
  items: TransactItem[];
  event: AuditEvent;
  /** Commits `closeCase` its own way instead of one transactWrite (the suspension's); false when it wrote nothing. */
  commit?: (closeCase: TransactItem) => Promise<boolean>;
}

type Planner = (ctx: { principal: Principal; target: Target; caseItem: StoredCase; nowIso: string; note?: string }) => Promise<Plan>;

const eventOf = (action: AuditEvent['action'], principal: Principal, subject: string, target: Target): AuditEvent => ({
  action,
  actor: principal.user_id,
  subject,
  via: principal.auth_type,
  target_type: target.type,
  target_id: target.id,
});

/** A comment: a tombstone in place (lib/entities/comments/comments.ts tombstoneUpdate); nothing to change when it is one already. */
async function removeComment({ principal, target, caseItem, nowIso }: Parameters<Planner>[0]): Promise<Plan> {
  const comment = await findComment(target.id);
  const items: TransactItem[] = comment?.openid ? [{ Update: tombstoneUpdate(comment, comment.openid, 'moderator', nowIso) }] : [];
  return { state: 'actioned', outcome: 'content_removed', items, event: eventOf('comment.removed', principal, comment?.openid || caseItem.owner, target) };
}

/**
 * A video: the video item and its tag rankings deleted (out of every walk of the feed, the author's
 * list, search, shares and likes lists, which all read the video item and drop a vid without one),
 * the author's latest list without it and their video_count one less; its fields kept under
 * `moderationKeys.removedVideo` for the record, with who removed it, when and the decision's note
 * (its vid is never published again: lib/entities/catalog/videos.ts). Nothing to change when it is gone already.
 */
async function removeVideo({ principal, target, caseItem, nowIso, note }: Parameters<Planner>[0]): Promise<Plan> {
  const video = await getVideo(target.id, true);
  const event = eventOf('video.removed', principal, video?.author_openid ?? caseItem.owner, target);
  if (!video) return { state: 'actioned', outcome: 'content_removed', items: [], event };
  const author = video.author_openid;
  const [found, account] = await Promise.all([batchGetHubItems([videoKeys.authorLatest(author)]), getAccount(author, true)]);
  const latest = authorLatestIn(found, author);
  const { gsi1pk: _1, gsi1sk: _2, gsi2pk: _3, gsi2sk: _4, gsi3pk: _5, gsi3sk: _6, ...fields } = video as VideoItem & Record<string, unknown>;
  const items: TransactItem[] = [
    videoDelete(video.vid),
    removedVideoPut(fields, { removed_at: nowIso, removed_by: principal.user_id, ...(note ? { note } : {}) }),
    ...videoTagDeletes(video),
    ...authorLatestRemoval(author, latest, video.vid),
  ];
  if (account && !isDeleted(account)) {
    items.push(accountCounterUpdate(author, { video_count: -1 }, ACCOUNT_EXISTS));
  }
  return { state: 'actioned', outcome: 'content_removed', items, event };
}

/**
 * The author (a video's, a comment's, or the reported user) suspended with the existing suspension
 * (lib/features/admin/suspension.ts): its account update, its `account.suspended` event and the key markers
 * in the one transaction that also closes the case. An account already suspended (or deleted) only
 * has the case closed, with a `reports.actioned` event on the moderator's own trail. An
 * administrator's or a moderator's account only an administrator suspends (403 for a moderator).
 */
async function suspendAuthor({ principal, target, caseItem }: Parameters<Planner>[0]): Promise<Plan> {
  const account = await getAccount(caseItem.owner, true);
  // A moderator does not suspend the staff: an administrator's or a moderator's account is for an administrator to suspend.
  if (!principal.roles.includes('admin') && (account?.roles ?? []).some((role) => role === 'admin' || role === 'moderator')) {
    throw new ForbiddenError('Only an administrator can suspend an administrator or a moderator');
  }
  const live = !!account && !isDeleted(account) && !(account as { suspended_at?: string }).suspended_at;
  if (!live) return { state: 'actioned', outcome: 'author_suspended', items: [], event: eventOf('reports.actioned', principal, principal.user_id, target) };
  return {
    state: 'actioned',
    outcome: 'author_suspended',
    items: [],
    event: eventOf('account.suspended', principal, caseItem.owner, target),
    commit: async (closeCase) => (await changeSuspension(principal, caseItem.owner, true, [closeCase])).applied,
  };
}

/** The action dispatch for reported targets: one planner per (action, target type). Held content: `actOnHeld`. */
const PLANNERS: Record<ModerationAction, Partial<Record<Target['type'], Planner>>> = {
  remove: { comment: removeComment, video: removeVideo },
  dismiss: {
    comment: dismiss,
    video: dismiss,
    user: dismiss,
  },
  suspend: { comment: suspendAuthor, video: suspendAuthor, user: suspendAuthor },
  approve: {},
};

/**
 * An action on held content (`target: {type: 'held', id: held_id}`, docs/moderation.md "Moderation"):
 * `approve` publishes it (lib/features/filter/held.ts approveHeld), `remove` discards it (discardHeld); each
 * writes its own audit event and answers 404 once the item is gone. A case of the same content, if
 * reported, is not touched. The note is not kept: a held item has no decision record.
 */
async function actOnHeld(principal: Principal, heldId: string, action: ModerationAction): Promise<ActionResult> {
  const run = action === 'approve' ? approveHeld : action === 'remove' ? discardHeld : undefined;
  if (!run) throw new ValidationError(`Invalid parameter "action": held content is given "approve" or "remove", not "${action}"`);
  try {
    parseHeldId(heldId);
  } catch {
    throw new ValidationError('Invalid parameter "target.id": not a held item id');
  }
  const done = await run(heldId, principal);
  return {
    target: { type: 'held', id: heldId },
    action,
    state: 'actioned',
    outcome: action === 'approve' ? 'content_approved' : 'content_removed',
    reports: 0,
    decided_at: clock.nowIso(),
    content: { type: done.target_type, id: done.target_id },
  };
}

async function dismiss({ principal, target }: Parameters<Planner>[0]): Promise<Plan> {
  return { state: 'dismissed', outcome: null, items: [], event: eventOf('reports.dismissed', principal, principal.user_id, target) };
}

const resultOf = (target: Target, d: Decision): ActionResult => ({ target, action: d.action, state: d.state, outcome: d.outcome, reports: d.reports, decided_at: d.decided_at });

/**
 * `POST /api/v1/moderation/actions` (docs/moderation.md, "Moderation"): the decision on the target's
 * open reports, the content change and the audit event in ONE transaction, every open report getting
 * the outcome (my_reports reads it from the case's decision of the report's round). A repeat of the
 * last decision on a case with nothing open answers that decision again and changes nothing; another
 * action with nothing open, or on a target never reported, is 404.
 */
export async function takeAction(principal: Principal, { target: given, action, note }: ActionBody): Promise<ActionResult> {
  if (given.type === 'held') return actOnHeld(principal, given.id, action);
  const target: Target = { type: given.type, id: given.id };
  const planner = PLANNERS[action][target.type];
  if (!planner) throw new ValidationError(`Invalid parameter "action": a ${target.type} cannot be given "${action}" (a user is suspended, not removed; "approve" is for held content)`);
  for (let attempt = 0; attempt < 5; attempt++) {
    const caseItem = await getCase(target);
    if (!caseItem) throw new NotFoundError(`Nothing is reported for ${target.type} "${target.id.slice(0, 64)}"`);
    // Nobody decides on their own account or content, whatever their role (docs/moderation.md, "Moderation").
    if (caseItem.owner === principal.user_id) throw new ForbiddenError('This case is about you or your content: another moderator or an administrator decides on it');
    if (caseItem.open_count === 0) {
      const last = caseItem.decisions[String(caseItem.round - 1)];
      if (last?.action === action) return resultOf(target, last);
      throw new NotFoundError(`No open report for ${target.type} "${target.id.slice(0, 64)}"`);
    }
    const now = clock.now();
    const nowIso = new Date(now).toISOString();
    const plan = await planner({ principal, target, caseItem, nowIso, ...(note ? { note } : {}) });
    const decision: Decision = { action, state: plan.state, outcome: plan.outcome, decided_at: nowIso, reports: caseItem.open_count };
    const closeCase = closeCaseItem(caseItem, { ...decision, ...(note ? { note } : {}) });
    try {
      if (plan.commit) {
        // The account turned suspended (or deleted) meanwhile: nothing written, decide again.
        if (!(await plan.commit(closeCase))) continue;
      } else {
        await transactWrite([closeCase, ...plan.items, auditItem(plan.event, now)]);
        // A removed video leaves the heads this container keeps (lib/entities/catalog/shared-heads.ts).
        if (target.type === 'video' && plan.items.length > 0) dropSharedHeads();
        writeAuditLine(plan.event);
      }
    } catch (error) {
      // The case, the content or the author changed since they were read: decide again on what is there.
      if (conditionFailed(error)) continue;
      throw error;
    }
    return resultOf(target, decision);
  }
  throw new UnavailableError('This target is being reported or decided right now; retry shortly');
}

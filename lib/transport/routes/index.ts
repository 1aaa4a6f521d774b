import type { RouteDoc } from '../../platform/api-doc.js';
import type { RouteSpec } from '../http/routes.js';
import { route as health } from './health.js';
import { route as openapi } from './openapi.js';
import { route as hub } from './hub.js';
import { route as createKey } from './create-key.js';
import { route as listKeys } from './list-keys.js';
import { route as revokeKey } from './revoke-key.js';
import { route as deleteKey } from './delete-key.js';
import { route as keyUsage } from './key-usage.js';
import { route as verifyKey } from './verify-key.js';
import { route as me } from './me.js';
import { route as policies } from './policies.js';
import { route as myData } from './my-data.js';
import { route as setRoles } from './set-roles.js';
import { route as signOut } from './sign-out.js';
import { route as listAudit } from './list-audit.js';
import { route as adminListKeys } from './admin-list-keys.js';
import { route as adminRevokeKey } from './admin-revoke-key.js';
import { route as adminLookupKey } from './admin-lookup-key.js';
import { route as suspendAccount } from './suspend-account.js';
import { route as reinstateAccount } from './reinstate-account.js';
import { route as deleteAccount } from './delete-account.js';
import { route as adminDeleteAccount } from './admin-delete-account.js';
import { route as listFilterTerms } from './list-filter-terms.js';
import { route as putFilterTerms } from './put-filter-terms.js';
import { route as deleteFilterTerm } from './delete-filter-term.js';
import { route as deletionStatus } from './deletion-status.js';
import { route as publishVideo } from './publish-video.js';
import { route as exportComments } from './export-comments.js';
import { route as exportAccounts } from './export-accounts.js';
import { route as moderationQueue } from './moderation-queue.js';
import { route as moderationAction } from './moderation-action.js';
import { route as sharePage } from './share-page.js';
import { route as wellKnown } from './well-known.js';

/**
 * Every route module: one import and one entry per deployed HTTP function. The route table, the
 * functions the CDK stack deploys for them with their grants (infra/routes.ts,
 * infra/constructs/api-functions.ts, http-api.ts), the local server (local/server.ts), the OpenAPI
 * document (scripts/openapi/document.ts) and the tests' lists of routes are derived from this list.
 * Its order is the route table's, and so the order of the paths in the OpenAPI document.
 */
export const ROUTE_MODULES = [
  health,
  hub,
  openapi,
  policies,
  createKey,
  listKeys,
  revokeKey,
  deleteKey,
  verifyKey,
  keyUsage,
  me,
  myData,
  setRoles,
  signOut,
  listAudit,
  adminListKeys,
  adminRevokeKey,
  adminLookupKey,
  suspendAccount,
  reinstateAccount,
  deleteAccount,
  adminDeleteAccount,
  deletionStatus,
  listFilterTerms,
  putFilterTerms,
  deleteFilterTerm,
  publishVideo,
  exportComments,
  exportAccounts,
  moderationQueue,
  moderationAction,
  sharePage,
  wellKnown,
] as const;

/** The name of a function that serves routes. */
export type RouteFunction = (typeof ROUTE_MODULES)[number]['name'];

/** The route table: every method and path, the function that serves it, who may call it (lib/transport/http/routes.ts). */
export const ROUTES: readonly RouteSpec<RouteFunction>[] = ROUTE_MODULES.flatMap((m): readonly RouteSpec<RouteFunction>[] => m.routes);

/** `"<METHOD> <path>"` -> its description in the OpenAPI document (every route but the hub's, which its operations describe). */
export const ROUTE_DOCS: Readonly<Record<string, RouteDoc>> = Object.assign({}, ...ROUTE_MODULES.map((m) => m.docs));

/** The module file of a route function, relative to the project root: its Lambda entry. */
export const routeEntry = (name: string) => `lib/transport/routes/${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}.ts`;

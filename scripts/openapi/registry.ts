import * as z from '../../lib/platform/zod.js';
import { listAuditDoc, signOutDoc } from '../../lib/platform/audit/audit-api.js';
import { adminListKeysDoc, adminLookupKeyDoc, adminRevokeKeyDoc, reinstateAccountDoc, setRolesDoc, suspendAccountDoc } from '../../lib/features/admin/admin-api.js';
import { defineRouteDoc, type RouteDoc } from '../../lib/platform/api-doc.js';
import { exportAccountsDoc, exportCommentsDoc } from '../../lib/features/export/export-api.js';
import { adminDeleteAccountDoc, deleteOwnAccountDoc, deletionStatusDoc } from '../../lib/features/deletion/deletion-api.js';
import { createKeyDoc, deleteKeyDoc, keyUsageDoc, listKeysDoc, revokeKeyDoc, verifyKeyDoc } from '../../lib/features/keys/key-api.js';
import { deleteFilterTermDoc, listFilterTermsDoc, putFilterTermsDoc } from '../../lib/features/filter/filter-api.js';
import { dataExportDoc } from '../../lib/features/personal-data/data-export-api.js';
import { publishVideoDoc } from '../../lib/features/publish/publish-api.js';
import { meDoc, policiesDoc } from '../../lib/features/policies/policies-api.js';
import { moderationActionDoc, moderationQueueDoc } from '../../lib/features/moderation/moderation-api.js';

/**
 * Every route of infra/routes.ts, described for the OpenAPI document: `"<METHOD> <path>"` -> its
 * RouteDoc, declared next to the route's use case (lib/<area>/*-api.ts). Adding a route to ROUTES
 * without a line here fails the build of the document (npm run openapi) and test/unit/openapi.test.ts.
 * The hub's route is described from its operations instead (lib/transport/hub/operations.ts: each operation's module declares its summary, answer and examples).
 */

const notFound = '404 when the deployment configures no such file.';

export const ROUTE_DOCS: Record<string, RouteDoc> = {
  'GET /api/v1/health': defineRouteDoc({
    tag: 'Service',
    summary: 'Liveness probe',
    description: 'Answers without a credential and without reading any store.',
    success: { status: 200, kind: 'json', data: z.object({ status: z.literal('ok') }) },
    errors: [],
    examples: [{ summary: 'Healthy', data: { status: 'ok' } }],
  }),
  'GET /api/v1/openapi.json': defineRouteDoc({
    tag: 'Service',
    summary: 'This document (OpenAPI 3.1), generated from the schemas that validate the requests',
    description: 'The file `npm run openapi` writes (lib/transport/openapi/generated/openapi.json), not the envelope.',
    success: { status: 200, kind: 'file' },
    errors: [],
  }),
  'GET /api/v1/docs': defineRouteDoc({
    tag: 'Service',
    summary: 'The API reference: this document rendered as an HTML page',
    description: 'A page without scripts, under a strict Content-Security-Policy.',
    success: { status: 200, kind: 'html' },
    errors: [],
  }),
  'GET /api/v1/policies': policiesDoc,
  'POST /api/v1/api-keys': createKeyDoc,
  'GET /api/v1/api-keys': listKeysDoc,
  'POST /api/v1/api-keys/{id}/revoke': revokeKeyDoc,
  'DELETE /api/v1/api-keys/{id}': deleteKeyDoc,
  'GET /api/v1/api-keys/verify': verifyKeyDoc,
  'GET /api/v1/api-keys/{id}/usage': keyUsageDoc,
  'GET /api/v1/me': meDoc,
  'GET /api/v1/me/data': dataExportDoc,
  'POST /api/v1/admin/users/{openid}/roles': setRolesDoc,
  'POST /api/v1/logout': signOutDoc,
  'GET /api/v1/audit': listAuditDoc,
  'GET /api/v1/moderation/reports': moderationQueueDoc,
  'POST /api/v1/moderation/actions': moderationActionDoc,
  'GET /api/v1/admin/users/{openid}/api-keys': adminListKeysDoc,
  'POST /api/v1/admin/api-keys/{id}/revoke': adminRevokeKeyDoc,
  'POST /api/v1/admin/api-keys/lookup': adminLookupKeyDoc,
  'POST /api/v1/admin/users/{openid}/suspend': suspendAccountDoc,
  'POST /api/v1/admin/users/{openid}/reinstate': reinstateAccountDoc,
  'DELETE /api/v1/me': deleteOwnAccountDoc,
  'DELETE /api/v1/admin/users/{openid}': adminDeleteAccountDoc,
  'GET /api/v1/deletions/{id}': deletionStatusDoc,
  'GET /api/v1/admin/filter-terms': listFilterTermsDoc,
  'POST /api/v1/admin/filter-terms': putFilterTermsDoc,
  'DELETE /api/v1/admin/filter-terms/{term}': deleteFilterTermDoc,
  'POST /api/v1/videos': publishVideoDoc,
  'GET /api/v1/export/comments': exportCommentsDoc,
  'GET /api/v1/export/accounts': exportAccountsDoc,
  'GET /s/{shareid}': defineRouteDoc({
    tag: 'Share pages',
    summary: 'The share page of a video (HTML, in the share\'s locale; an HTML 404 page when unknown)',
    description: 'A browser opens it, so every answer is a page: HTML 200, HTML 404 (unknown or expired share, removed video), HTML 503 with Retry-After when the store is unavailable. A view counts an open on the share and its video once per network (an IPv4 address, an IPv6 /64) and UTC day; an unknown id counts nothing.',
    pathParams: z.object({ shareid: z.string() }),
    success: { status: 200, kind: 'html' },
    errors: [404],
  }),
  'GET /.well-known/apple-app-site-association': defineRouteDoc({
    tag: 'Share pages',
    summary: 'iOS universal links association file, from configuration',
    description: notFound,
    success: { status: 200, kind: 'file' },
    errors: [404],
  }),
  'GET /.well-known/assetlinks.json': defineRouteDoc({
    tag: 'Share pages',
    summary: 'Android app links association file, from configuration',
    description: notFound,
    success: { status: 200, kind: 'file' },
    errors: [404],
  }),
};

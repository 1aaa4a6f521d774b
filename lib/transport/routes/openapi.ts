import document from '../openapi/generated/openapi.json';
import { REFERENCE_PAGE_CSP, renderReferencePage } from '../openapi/reference-page.js';
import { defineRoute } from '../http/define-route.js';

/** Generated at build time (npm run openapi); the page is rendered from it once, on first request. */
const json = JSON.stringify(document);
let page: string | undefined;
const cache = { 'cache-control': 'public, max-age=300' };

/** `GET /api/v1/openapi.json` and `GET /api/v1/docs` (public, static): no table, no secret. */
export const route = defineRoute({
  name: 'openapi',
  description: 'The OpenAPI document and the API reference page',
  tables: {},
  routes: [
    {
      method: 'GET',
      path: '/api/v1/openapi.json',
      doc: {
        tag: 'Service',
        summary: 'This document (OpenAPI 3.1), generated from the schemas that validate the requests',
        description: 'The file `npm run openapi` writes (lib/transport/openapi/generated/openapi.json), not the envelope.',
        success: { status: 200, kind: 'file' },
        errors: [],
      },
    },
    {
      method: 'GET',
      path: '/api/v1/docs',
      doc: {
        tag: 'Service',
        summary: 'The API reference: this document rendered as an HTML page',
        description: 'A page without scripts, under a strict Content-Security-Policy.',
        success: { status: 200, kind: 'html' },
        errors: [],
      },
    },
  ],
  auth: 'none',
  page: async ({ rawPath }) => {
    if (rawPath.endsWith('/docs')) {
      page ??= renderReferencePage(document as Record<string, unknown>);
      return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': REFERENCE_PAGE_CSP, ...cache }, body: page };
    }
    return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', ...cache }, body: json };
  },
});
export const handler = route.handler;

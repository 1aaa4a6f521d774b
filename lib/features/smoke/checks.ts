/**
 * The checks that say whether a deployment answers (docs/deploy.md, "Smoke check" and "The synthetic
 * check"): `npm run smoke` (scripts/smoke.ts) runs them once after a deploy, the scheduled function
 * (functions/synthetic-check.ts) every 5 minutes. Pure: a base URL, an optional access key and a
 * `fetch` in, one result per check out. No result ever holds the key or a token: the request is shown
 * with `<key>` in its place and every reason is scrubbed of anything shaped like a credential.
 *
 * Redirects are not followed: a 3xx fails, naming where it points, because the check must see this
 * deployment's own answers (an `http://` base URL that CloudFront redirects to https is a wrong URL).
 */

import { SYNTHETIC_CHECK_NAMES } from '../../platform/observability/metric-names.js';

/** The names of the checks, in the order they run; the key checks only with a key. */
export const CHECK_NAMES = SYNTHETIC_CHECK_NAMES;
export type CheckName = (typeof CHECK_NAMES)[number];

export interface CheckResult {
  name: CheckName;
  /** Method and path, e.g. `GET /api/v1/health` (the key shown as `<key>`). */
  request: string;
  /** The HTTP status, or null when no answer came (timeout, refused connection, a check that could not run). */
  status: number | null;
  latency_ms: number;
  ok: boolean;
  /** Why it failed (absent when ok). */
  reason?: string;
}

export interface SmokeOptions {
  /** The deployment's public URL (the stack's WebUrl), or the local server's. */
  baseUrl: string;
  /** An access key: adds verify, /me and the key's usage. */
  key?: string;
  fetch?: typeof fetch;
  /** Per check; default DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** A monotonic clock in milliseconds (latencies). */
  now?: () => number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

/** A share id of the valid shape (so the page reads the table) that no share is given in practice: 20 characters of 62. */
export const ABSENT_SHARE_ID = '0smokecheck000000000';

/** The anonymous feed page: newest first (no taste to compute, nothing recorded without `d`), one video. */
const FEED_PATH = '/api/v1?do=get_next_list&openid=smoke-check&order=new&watch_count=1';

interface Answer {
  status: number;
  contentType: string;
  text: string;
  location: string | null;
}

type Verdict = string | undefined;

const json = (answer: Answer): Record<string, unknown> | undefined => {
  if (!answer.contentType.includes('application/json')) return undefined;
  try {
    const parsed: unknown = JSON.parse(answer.text);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The status, then the envelope `{code: 0, data}`; returns why not, or the data through `then`. */
function envelope(answer: Answer, then: (data: Record<string, unknown>) => Verdict): Verdict {
  const body = json(answer);
  if (answer.status !== 200) return `expected 200, got ${answer.status}${errorOf(body)}`;
  if (!body || body.code !== 0 || typeof body.data !== 'object' || body.data === null) return 'expected the envelope {"code":0,"data":...}';
  return then(body.data as Record<string, unknown>);
}

const errorOf = (body: Record<string, unknown> | undefined) => (body && typeof body.error === 'string' ? `: ${body.error}` : '');

const html = (answer: Answer, status: number): Verdict => {
  if (answer.status !== status) return `expected ${status}, got ${answer.status}`;
  if (!answer.contentType.startsWith('text/html')) return `expected text/html, got ${answer.contentType || 'no content-type'}`;
  return undefined;
};

/** What each answer must be: its verdict, `undefined` when it passes. */
export const VERDICTS = {
  health: (a: Answer) => envelope(a, (data) => (data.status === 'ok' ? undefined : 'expected data.status "ok"')),
  openapi: (a: Answer) => {
    if (a.status !== 200) return `expected 200, got ${a.status}`;
    const doc = json(a);
    if (!doc || typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.')) return 'expected an OpenAPI 3 document';
    return typeof doc.paths === 'object' && doc.paths !== null && Object.keys(doc.paths).length > 0 ? undefined : 'expected an OpenAPI document with paths';
  },
  feed: (a: Answer) => envelope(a, (data) => (Array.isArray(data.list) ? undefined : 'expected data.list, an array')),
  share_404: (a: Answer) => html(a, 404),
  page: (a: Answer) => html(a, 200),
  verify: (a: Answer) => envelope(a, (data) => (data.valid === true ? undefined : 'expected data.valid true')),
  me: (a: Answer) =>
    envelope(a, (data) => {
      if (data.auth_type !== 'api_key') return 'expected auth_type "api_key"';
      return typeof data.key_id === 'number' ? undefined : 'expected data.key_id, a number';
    }),
  usage: (a: Answer) => envelope(a, (data) => (Array.isArray(data.days) && data.days.length === 30 ? undefined : 'expected data.days, 30 days')),
} satisfies Record<CheckName, (answer: Answer) => Verdict>;

/** Anything shaped like an access key or a JWT becomes `<redacted>`; the key itself `<key>`. */
export function scrub(text: string, key?: string): string {
  let out = key ? text.split(key).join('<key>') : text;
  out = out.replace(/ak_[A-Za-z0-9]{8,}/g, '<redacted>').replace(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '<redacted>');
  return out;
}

interface Probe {
  name: CheckName;
  path: string;
  /** The path as shown (without the key). */
  shown: string;
  bearer?: boolean;
}

/**
 * Runs the checks one after the other (the key's usage needs the key id /me answered) and returns
 * every result; it never throws for a failing deployment.
 */
export async function runSmokeChecks(options: SmokeOptions): Promise<CheckResult[]> {
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? (() => performance.now());
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const base = options.baseUrl.replace(/\/+$/, '');
  const key = options.key;

  const probe = async (p: Probe): Promise<CheckResult & { data?: Record<string, unknown> }> => {
    const request = `GET ${p.shown}`;
    const started = now();
    const elapsed = () => Math.round(now() - started);
    try {
      const res = await doFetch(base + p.path, {
        method: 'GET',
        redirect: 'manual',
        headers: { 'user-agent': 'expohub-smoke/1', ...(p.bearer && key ? { authorization: `Bearer ${key}` } : {}) },
        signal: AbortSignal.timeout(timeoutMs),
      });
      const answer: Answer = { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text(), location: res.headers.get('location') };
      const latency = elapsed();
      const reason =
        answer.status >= 300 && answer.status < 400 ? `redirected (${answer.status}) to ${answer.location ?? 'nowhere'}: redirects are not followed` : VERDICTS[p.name](answer);
      const data = json(answer)?.data;
      return {
        name: p.name,
        request,
        status: answer.status,
        latency_ms: latency,
        ok: reason === undefined,
        ...(reason !== undefined && { reason: scrub(reason, key) }),
        ...(typeof data === 'object' && data !== null && { data: data as Record<string, unknown> }),
      };
    } catch (error) {
      const err = error as Error;
      const reason = err.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `request failed: ${(err.cause as Error | undefined)?.message ?? err.message}`;
      return { name: p.name, request, status: null, latency_ms: elapsed(), ok: false, reason: scrub(reason, key) };
    }
  };
  const result = ({ data: _data, ...r }: CheckResult & { data?: unknown }): CheckResult => r;

  const results: CheckResult[] = [];
  for (const p of [
    { name: 'health', path: '/api/v1/health', shown: '/api/v1/health' },
    { name: 'openapi', path: '/api/v1/openapi.json', shown: '/api/v1/openapi.json' },
    { name: 'feed', path: FEED_PATH, shown: FEED_PATH },
    { name: 'share_404', path: `/s/${ABSENT_SHARE_ID}`, shown: `/s/${ABSENT_SHARE_ID}` },
    { name: 'page', path: '/', shown: '/' },
  ] satisfies Probe[]) {
    results.push(result(await probe(p)));
  }
  if (!key) return results;

  results.push(result(await probe({ name: 'verify', path: `/api/v1/api-keys/verify?key=${encodeURIComponent(key)}`, shown: '/api/v1/api-keys/verify?key=<key>' })));
  const me = await probe({ name: 'me', path: '/api/v1/me', shown: '/api/v1/me', bearer: true });
  results.push(result(me));
  const keyId = me.ok ? me.data?.key_id : undefined;
  if (typeof keyId === 'number') {
    results.push(result(await probe({ name: 'usage', path: `/api/v1/api-keys/${keyId}/usage`, shown: `/api/v1/api-keys/${keyId}/usage`, bearer: true })));
  } else {
    results.push({ name: 'usage', request: 'GET /api/v1/api-keys/{id}/usage', status: null, latency_ms: 0, ok: false, reason: 'not run: /me did not name the key id' });
  }
  return results;
}

/** One line per check: verdict, status, latency, name, request, and the reason of a failure. */
export function formatResult(r: CheckResult): string {
  const verdict = r.ok ? 'ok  ' : 'FAIL';
  const status = String(r.status ?? '---').padEnd(3);
  const latency = `${r.latency_ms} ms`.padStart(8);
  return `${verdict} ${status} ${latency}  ${r.name.padEnd(9)}  ${r.request}${r.ok ? '' : `  ${r.reason}`}`;
}

/** The summary line: how many passed, and the names of those that failed. */
export function summarize(results: CheckResult[]): string {
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  return failed.length === 0 ? `${results.length} checks passed` : `${failed.length} of ${results.length} checks failed: ${failed.join(', ')}`;
}

/* eslint-disable */
// @ts-nocheck
// @expohub/client (client/src/index.ts in the repository), bundled for the CLI by cli/bundle-client.ts.
// Do not edit: regenerate it. Typed through client/src/index.ts (cli/src/http.mjs).

// client/src/generated.ts
var OPERATIONS = {
  "auth.requestCode": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "gen_code", "auth": "none", "idempotent": false },
  "auth.signIn": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "create_phone_account", "auth": "none", "idempotent": false },
  "feed.next": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "get_next_list", "auth": "optional", "idempotent": true, "page": { "param": "fav_index", "next": "fav_index", "end": "" } },
  "videos.get": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "get_video", "auth": "optional", "idempotent": true },
  "me.lists": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "get_fav", "auth": "required", "idempotent": true, "empty": ["watch_list", "view", "q"], "page": { "param": "next_id", "next": "next_id", "end": -1 } },
  "social.following": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "get_follow", "auth": "required", "idempotent": true, "empty": ["watch_list"], "page": { "param": "offset", "next": "next_offset", "end": -1 } },
  "social.followers": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "get_follower", "auth": "required", "idempotent": true, "empty": ["watch_list"], "page": { "param": "offset", "next": "next_offset", "end": -1 } },
  "videos.like": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "like", "auth": "required", "idempotent": false },
  "videos.dislike": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "dislike", "auth": "required", "idempotent": false },
  "comments.post": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "comment_set", "auth": "required", "idempotent": false },
  "comments.list": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "comment_get", "auth": "required", "idempotent": true, "empty": ["d"], "page": { "param": "page", "next": "page", "end": "has_more" } },
  "comments.delete": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "comment_delete", "auth": "required", "idempotent": false },
  "safety.report": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "report", "auth": "required", "idempotent": false },
  "safety.myReports": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "my_reports", "auth": "required", "idempotent": true, "page": { "param": "cursor", "next": "cursor", "end": "" } },
  "videos.share": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "sharetext", "auth": "optional", "idempotent": false, "empty": ["d", "locale", "country"] },
  "social.follow": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "follow_user", "auth": "required", "idempotent": false },
  "social.unfollow": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "unfollow_user", "auth": "required", "idempotent": false },
  "me.changeNickname": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "change_nickname", "auth": "required", "idempotent": false },
  "me.changeSignature": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "change_signature", "auth": "required", "idempotent": false },
  "me.changeCity": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "change_city", "auth": "required", "idempotent": false },
  "me.deleteAccount": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "delete_account", "auth": "required", "idempotent": false },
  "me.acceptTerms": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "accept_terms", "auth": "required", "idempotent": false },
  "safety.block": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "block_user", "auth": "required", "idempotent": false },
  "safety.unblock": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "unblock_user", "auth": "required", "idempotent": false },
  "safety.blocked": { "kind": "hub", "method": "GET", "path": "/api/v1", "do": "get_blocked", "auth": "required", "idempotent": true, "page": { "param": "offset", "next": "next_offset", "end": -1 } },
  "service.health": { "kind": "route", "method": "GET", "path": "/api/v1/health", "auth": "none", "idempotent": true, "answer": "json", "query": [], "body": null },
  "service.openapi": { "kind": "route", "method": "GET", "path": "/api/v1/openapi.json", "auth": "none", "idempotent": true, "answer": "file", "query": [], "body": null },
  "service.docs": { "kind": "route", "method": "GET", "path": "/api/v1/docs", "auth": "none", "idempotent": true, "answer": "html", "query": [], "body": null },
  "service.policies": { "kind": "route", "method": "GET", "path": "/api/v1/policies", "auth": "none", "idempotent": true, "answer": "json", "query": [], "body": null },
  "keys.create": { "kind": "route", "method": "POST", "path": "/api/v1/api-keys", "auth": "jwt", "idempotent": false, "answer": "json", "query": [], "body": ["name", "scopes", "expires_at", "rate_limit_per_minute", "user_id"] },
  "keys.list": { "kind": "route", "method": "GET", "path": "/api/v1/api-keys", "auth": "jwt", "idempotent": true, "answer": "json", "query": [], "body": null },
  "keys.revoke": { "kind": "route", "method": "POST", "path": "/api/v1/api-keys/{id}/revoke", "auth": "jwt", "idempotent": false, "answer": "json", "query": [], "body": null },
  "keys.delete": { "kind": "route", "method": "DELETE", "path": "/api/v1/api-keys/{id}", "auth": "jwt", "idempotent": false, "answer": "json", "query": [], "body": null },
  "keys.verify": { "kind": "route", "method": "GET", "path": "/api/v1/api-keys/verify", "auth": "none", "idempotent": true, "answer": "json", "query": ["key"], "body": null },
  "keys.usage": { "kind": "route", "method": "GET", "path": "/api/v1/api-keys/{id}/usage", "auth": "either", "idempotent": true, "answer": "json", "query": [], "body": null },
  "me.get": { "kind": "route", "method": "GET", "path": "/api/v1/me", "auth": "either", "idempotent": true, "answer": "json", "query": [], "body": null },
  "me.exportData": { "kind": "route", "method": "GET", "path": "/api/v1/me/data", "auth": "jwt", "idempotent": true, "answer": "json", "query": ["cursor"], "body": null, "page": { "param": "cursor", "next": "next_cursor", "end": null } },
  "admin.setRoles": { "kind": "route", "method": "POST", "path": "/api/v1/admin/users/{openid}/roles", "auth": "admin", "idempotent": false, "answer": "json", "query": [], "body": ["roles"] },
  "auth.signOut": { "kind": "route", "method": "POST", "path": "/api/v1/logout", "auth": "jwt", "idempotent": false, "answer": "json", "query": [], "body": null },
  "me.audit": { "kind": "route", "method": "GET", "path": "/api/v1/audit", "auth": "jwt", "idempotent": true, "answer": "json", "query": ["cursor", "limit"], "body": null, "page": { "param": "cursor", "next": "next_cursor", "end": null } },
  "admin.listKeys": { "kind": "route", "method": "GET", "path": "/api/v1/admin/users/{openid}/api-keys", "auth": "admin", "idempotent": true, "answer": "json", "query": [], "body": null },
  "admin.revokeKey": { "kind": "route", "method": "POST", "path": "/api/v1/admin/api-keys/{id}/revoke", "auth": "admin", "idempotent": false, "answer": "json", "query": [], "body": null },
  "admin.lookupKey": { "kind": "route", "method": "POST", "path": "/api/v1/admin/api-keys/lookup", "auth": "admin", "idempotent": false, "answer": "json", "query": [], "body": ["key", "revoke"] },
  "admin.suspend": { "kind": "route", "method": "POST", "path": "/api/v1/admin/users/{openid}/suspend", "auth": "admin", "idempotent": false, "answer": "json", "query": [], "body": null },
  "admin.reinstate": { "kind": "route", "method": "POST", "path": "/api/v1/admin/users/{openid}/reinstate", "auth": "admin", "idempotent": false, "answer": "json", "query": [], "body": null },
  "me.delete": { "kind": "route", "method": "DELETE", "path": "/api/v1/me", "auth": "jwt", "idempotent": false, "answer": "json", "query": ["confirm"], "body": null },
  "admin.deleteAccount": { "kind": "route", "method": "DELETE", "path": "/api/v1/admin/users/{openid}", "auth": "admin", "idempotent": false, "answer": "json", "query": ["confirm"], "body": null },
  "me.deletionStatus": { "kind": "route", "method": "GET", "path": "/api/v1/deletions/{id}", "auth": "none", "idempotent": true, "answer": "json", "query": [], "body": null },
  "moderation.filterTerms": { "kind": "route", "method": "GET", "path": "/api/v1/admin/filter-terms", "auth": "admin", "idempotent": true, "answer": "json", "query": [], "body": null },
  "moderation.putFilterTerms": { "kind": "route", "method": "POST", "path": "/api/v1/admin/filter-terms", "auth": "admin", "idempotent": false, "answer": "json", "query": [], "body": ["terms"] },
  "moderation.deleteFilterTerm": { "kind": "route", "method": "DELETE", "path": "/api/v1/admin/filter-terms/{term}", "auth": "admin", "idempotent": false, "answer": "json", "query": [], "body": null },
  "videos.publish": { "kind": "route", "method": "POST", "path": "/api/v1/videos", "auth": "either", "idempotent": false, "answer": "json", "query": ["dry_run"], "body": ["title", "description", "video_url", "cover_url", "duration_s", "tags", "external_id"] },
  "exports.comments": { "kind": "route", "method": "GET", "path": "/api/v1/export/comments", "auth": "either", "idempotent": true, "answer": "json", "query": ["limit", "cursor", "since"], "body": null, "page": { "param": "cursor", "next": "next_cursor", "end": null } },
  "exports.accounts": { "kind": "route", "method": "GET", "path": "/api/v1/export/accounts", "auth": "either", "idempotent": true, "answer": "json", "query": ["limit", "cursor", "since"], "body": null, "page": { "param": "cursor", "next": "next_cursor", "end": null } },
  "moderation.queue": { "kind": "route", "method": "GET", "path": "/api/v1/moderation/reports", "auth": "moderator", "idempotent": true, "answer": "json", "query": ["cursor", "limit"], "body": null, "page": { "param": "cursor", "next": "next_cursor", "end": null } },
  "moderation.act": { "kind": "route", "method": "POST", "path": "/api/v1/moderation/actions", "auth": "moderator", "idempotent": false, "answer": "json", "query": [], "body": ["target", "action", "note"] },
  "service.sharePage": { "kind": "route", "method": "GET", "path": "/s/{shareid}", "auth": "none", "idempotent": true, "answer": "html", "query": [], "body": null },
  "service.appleAppSiteAssociation": { "kind": "route", "method": "GET", "path": "/.well-known/apple-app-site-association", "auth": "none", "idempotent": true, "answer": "file", "query": [], "body": null },
  "service.assetLinks": { "kind": "route", "method": "GET", "path": "/.well-known/assetlinks.json", "auth": "none", "idempotent": true, "answer": "file", "query": [], "body": null }
};

// client/src/index.ts
function memorySession(initial = null) {
  let current = initial;
  return {
    get: () => current,
    set: (session) => {
      current = session;
    }
  };
}
var ExpohubError = class extends Error {
  constructor(code, message, status, details = {}) {
    super(message);
    this.code = code;
    this.status = status;
    this.name = "ExpohubError";
    this.requestId = details.requestId;
    this.field = details.field;
    this.retryAfter = details.retryAfter;
    this.envelope = details.envelope ?? false;
    this.cause = details.cause;
  }
};
var aborted = () => new ExpohubError("ABORTED", "The call was aborted", 0);
function queryString(entries) {
  return entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
}
var sleep = (ms, signal) => new Promise((resolve, reject) => {
  const timer = setTimeout(() => {
    signal?.removeEventListener("abort", stop);
    resolve();
  }, ms);
  const stop = () => {
    clearTimeout(timer);
    reject(aborted());
  };
  if (signal?.aborted) stop();
  else signal?.addEventListener("abort", stop, { once: true });
});
function retryAfterSeconds(value) {
  if (!value) return void 0;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? void 0 : Math.max(0, Math.ceil((at - Date.now()) / 1e3));
}
function fieldOf(message) {
  return /parameter "([^"]+)"/.exec(message)?.[1];
}
var text = (v) => typeof v === "string" ? v : String(v);
function createClient(options) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const session = options.session ?? memorySession();
  const doFetch = options.fetch ?? ((...args) => fetch(...args));
  const table = OPERATIONS;
  async function once(spec, params, held, call2) {
    const query = /* @__PURE__ */ new Map();
    let path = spec.path;
    let body;
    const headers = {};
    for (const [k, v] of Object.entries({ ...options.headers, ...call2.headers })) headers[k.toLowerCase()] = v;
    headers.accept = "application/json";
    if (spec.kind === "hub") {
      query.set("do", spec.do);
      for (const [k, v] of Object.entries(params)) if (v !== void 0 && v !== null) query.set(k, text(v));
      for (const k of spec.empty ?? []) if (!query.has(k)) query.set(k, "");
      if (spec.auth !== "none" && !query.has("openid")) query.set("openid", held?.openid ?? options.anonymousId ?? "anonymous");
      if (spec.do === "create_phone_account") {
        if (!query.has("openid0")) query.set("openid0", held?.openid ?? "");
        if (!query.has("token0")) query.set("token0", held?.token ?? "");
      }
    } else {
      for (const [k, v] of Object.entries(params)) {
        if (v === void 0) continue;
        const inPath = spec.path.includes(`{${k}}`);
        if (!inPath && !spec.body?.includes(k) && !spec.query?.includes(k)) return { error: new ExpohubError("VALIDATION_ERROR", `Unknown parameter "${k}": ${spec.method} ${spec.path} does not take it`, 0, { field: k }) };
        if (inPath) path = path.replace(`{${k}}`, encodeURIComponent(text(v)));
        else if (spec.body?.includes(k)) (body ??= {})[k] = v;
        else if (v !== null) query.set(k, text(v));
      }
      if (spec.body && !body) body = {};
    }
    const credential = spec.auth === "none" ? void 0 : held?.token ?? options.accessKey;
    if (credential) headers.authorization = `Bearer ${credential}`;
    if (body) headers["content-type"] = "application/json";
    const qs = queryString([...query]);
    if (call2.signal?.aborted) return { error: aborted() };
    const controller = new AbortController();
    const timeoutMs = call2.timeoutMs ?? options.timeoutMs ?? 3e4;
    let timedOut = false;
    const timer = timeoutMs > 0 ? setTimeout(() => (timedOut = true, controller.abort()), timeoutMs) : void 0;
    const abort = () => controller.abort();
    call2.signal?.addEventListener("abort", abort, { once: true });
    let response;
    try {
      response = await doFetch(`${base}${path}${qs ? `?${qs}` : ""}`, { method: spec.method, headers, body: body ? JSON.stringify(body) : void 0, signal: controller.signal });
    } catch (error) {
      if (timedOut) return { error: new ExpohubError("TIMEOUT", `No answer within ${timeoutMs} ms`, 0) };
      if (call2.signal?.aborted) return { error: aborted() };
      return { error: new ExpohubError("NETWORK_ERROR", error instanceof Error ? error.message : "The request failed", 0, { cause: error }) };
    } finally {
      clearTimeout(timer);
      call2.signal?.removeEventListener("abort", abort);
    }
    const requestId = response.headers.get("x-request-id") ?? void 0;
    if (spec.answer === "html" || spec.answer === "file") {
      const raw = await response.text();
      if (response.ok) return { data: raw };
      return { error: new ExpohubError(response.status === 404 ? "NOT_FOUND" : "HTTP_ERROR", `HTTP ${response.status}`, response.status, { requestId }) };
    }
    let payload;
    try {
      payload = await response.json();
    } catch {
      payload = void 0;
    }
    if (response.ok && payload && payload.code === 0) return { data: payload.data };
    const envelope = typeof payload?.code === "string" && typeof payload.error === "string";
    const code = envelope ? String(payload.code) : response.status >= 500 ? "UNAVAILABLE" : "HTTP_ERROR";
    const message = envelope ? String(payload.error) : `HTTP ${response.status}`;
    const retryAfter = retryAfterSeconds(response.headers.get("retry-after"));
    return { error: new ExpohubError(code, message, response.status, { requestId, field: response.status === 400 ? fieldOf(message) : void 0, retryAfter, envelope }) };
  }
  async function call(name, params = {}, call2 = {}) {
    const spec = table[name];
    if (!spec) throw new ExpohubError("VALIDATION_ERROR", `Unknown method ${String(name)}`, 0);
    const retries = call2.idempotent ?? spec.idempotent ? Math.max(0, call2.retries ?? options.retries ?? 2) : 0;
    const held = await session.get() ?? null;
    for (let attempt = 0; ; attempt++) {
      const result = await once(spec, params, held, call2);
      if ("data" in result) {
        if (spec.do === "create_phone_account") {
          const d = result.data;
          await session.set({ openid: d.openid, token: d.token, expires_at: d.expires_at });
        }
        if (name === "auth.signOut" || spec.do === "delete_account" || name === "me.delete") await session.set(null);
        return result.data;
      }
      const { error } = result;
      if (error.status === 401 && held && spec.auth !== "none" && !params.token && (params.openid === void 0 || params.openid === held.openid)) {
        await session.set(null);
        options.onSessionEnded?.({ error, session: held });
        throw error;
      }
      const transient = error.status === 429 || error.status === 503 || error.code === "NETWORK_ERROR" || error.code === "TIMEOUT";
      const wait = error.retryAfter !== void 0 ? error.retryAfter * 1e3 : Math.round(2 ** attempt * 1e3 * (1 - Math.random() / 2));
      if (!transient || attempt >= retries || wait > (options.maxRetryWaitMs ?? 3e4)) throw error;
      options.onRetry?.({ name, attempt: attempt + 1, waitMs: wait, error });
      await sleep(wait, call2.signal);
    }
  }
  async function* pages(name, params = {}, callOptions = {}) {
    const page = table[name]?.page;
    if (!page) throw new ExpohubError("VALIDATION_ERROR", `${String(name)} is not a paged list`, 0);
    let current = { ...params };
    for (let seen = 0; seen < 1e5; seen++) {
      const data = await call(name, current, callOptions);
      yield data;
      if (page.end === "has_more") {
        if (!data.has_more) return;
        current = { ...current, [page.param]: Number(data.page ?? current[page.param] ?? 1) + 1 };
        continue;
      }
      const next = data[page.next];
      if (next === void 0 || next === null || next === "" || next === -1) return;
      current = { ...current, [page.param]: next };
    }
  }
  const client = {
    call: (name, params, o) => call(name, params, o),
    pages: (name, params, o) => pages(name, params, o),
    session
  };
  for (const name of Object.keys(table)) {
    const [group, member] = name.split(".");
    const target = client[group] ??= {};
    target[member] = (params, o) => call(name, params, o);
    if (table[name].page) target[`${member}Pages`] = (params, o) => pages(name, params, o);
  }
  return client;
}
export {
  ExpohubError,
  OPERATIONS,
  createClient,
  memorySession
};

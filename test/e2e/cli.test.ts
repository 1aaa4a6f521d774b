import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';


import { getAccount } from '../../lib/entities/accounts/accounts.js';
import { freePort } from '../../local/dynamodb-local.js';
import { hub, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { ndjson, type CliRun } from '../support/cli-run.js';
import { apiClient, settleStreams, startTestStack } from '../support/stack.js';

const CLI = resolve(import.meta.dirname, '../../cli/bin/expohub.mjs');

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let admin: SignedUp;
let editor: SignedUp;
let editorKey: string;
let dir: string;

/** Runs the CLI as a child process. Asynchronous on purpose: the API server lives in this process. */
function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const base = { ...process.env };
    delete base.EXPOHUB_URL;
    delete base.EXPOHUB_KEY;
    // No stored login of the person running the tests: an empty config directory.
    base.EXPOHUB_CONFIG_DIR = join(dir, 'config');
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...base, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

const envFor = (key: string, url = stack.url) => ({ EXPOHUB_URL: url, EXPOHUB_KEY: key });
const videoCount = async (openid: string) => (await getAccount(openid, true))?.video_count ?? 0;

function writeLines(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const good = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ title: 'CLI upload', video_url: 'https://cdn.example.com/v.mp4', cover_url: 'https://cdn.example.com/c.jpg', duration_s: 42, tags: ['cli'], ...extra });

beforeAll(async () => {
  // Pages of 2 records: `account export` follows its cursor over several.
  stack = await startTestStack({ env: { DATA_EXPORT_PAGE_SIZE: '2' } });
  api = apiClient(stack.url);
  dir = mkdtempSync(join(tmpdir(), 'expohub-cli-'));
  admin = await signUp(api, ADMIN_PHONE);
  editor = await signUp(api);
  expect((await api.post(`/api/v1/admin/users/${editor.openid}/roles`, { token: admin.token, body: { roles: ['editor'] } })).status).toBe(200);
  const created = await api.post<{ api_key: string }>('/api/v1/api-keys', { token: editor.token, body: { name: 'cli' } });
  editorKey = created.data.api_key;
});
afterAll(async () => {
  await stack?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('expohub CLI: usage', () => {
  it('--help prints usage and exits 0', async () => {
    const run = await cli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('expohub publish FILE.jsonl');
    expect(run.stdout).toContain('expohub keys create');
    expect(run.stdout).toContain('EXPOHUB_URL');
    expect(run.stdout).toContain('EXPOHUB_KEY');
  });

  it('without a server exits 2; without a credential (no EXPOHUB_KEY, no login) exits 3, saying what to do', async () => {
    const noKey = await cli(['export', 'comments'], { EXPOHUB_URL: stack.url });
    expect(noKey.code).toBe(3);
    expect(noKey.stderr).toContain(`not signed in to ${stack.url}: run "expohub login --url ${stack.url}", or set EXPOHUB_KEY`);
    const neither = await cli(['publish', 'x.jsonl']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('no server: pass --url URL, set EXPOHUB_URL');
  });

  it('names what failed when the server cannot be reached (the connection refused, not "fetch failed"), after its attempts, exit 1', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await cli(['export', 'comments', '--max-attempts', '2'], envFor(editorKey, closed));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cannot reach ${closed}: `);
    expect(run.stderr).toContain('ECONNREFUSED');
    expect(run.stderr).not.toContain('fetch failed');
    expect(run.stdout).toBe('');
  });

  it.each([[['frobnicate']], [['export', 'videos']], [['publish']], [['export', 'comments', '--limit', '0']], [['--nope']], [[]], [['publish', 'x.jsonl', '--cursor', 'c']], [['keys', 'create']], [['keys', 'revoke', 'abc']], [['account']], [['account', 'delete', '--since', '2026-01-01']]])('exits 2 on a usage error: %j', async (args) => {
    const run = await cli(args, envFor(editorKey));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/expohub: .+/);
    expect(run.stdout).toBe('');
  });

  it('exits 2 when the file does not exist', async () => {
    const run = await cli(['publish', join(dir, 'missing.jsonl')], envFor(editorKey));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no such file');
  });
});

describe('expohub publish', () => {
  it('publishes the good lines, reports each bad line with its number and error, exits 1', async () => {
    const before = await videoCount(editor.openid);
    const file = writeLines('mixed.jsonl', [
      good({ external_id: 'cli-1', title: 'Line one' }),
      '{"title": "broken JSON"',
      good({ duration_s: 0 }),
      '',
      good({ title: 'Line five' }),
      '["not", "an", "object"]',
      good({ external_id: 'cli-2', video_url: 'http://insecure.example.com/v.mp4' }),
      good({ external_id: 'cli-3', title: 'Line eight' }),
    ]);
    const run = await cli(['publish', file, '--verbose'], envFor(editorKey));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 2: INVALID_JSON/);
    expect(run.stderr).toMatch(/line 3: VALIDATION_ERROR: .*duration_s/);
    expect(run.stderr).toMatch(/line 6: INVALID_JSON: the line must be a JSON object/);
    expect(run.stderr).toMatch(/line 7: VALIDATION_ERROR: .*video_url/);
    expect(run.stderr).not.toMatch(/line (1|4|5|8):/);
    expect(run.stderr).toContain('published 3 of 7 lines; 4 failed (lines 2, 3, 6, 7)');
    // Not a TTY here: plain progress lines.
    expect(run.stderr).toContain('progress: 7/7 lines published (ok 3, failed 4)');

    const out = ndjson(run.stdout);
    expect(out.map((o) => o.line).sort()).toEqual([1, 5, 8]);
    expect(out.find((o) => o.line === 1)).toMatchObject({ external_id: 'cli-1', vid: expect.any(String) });
    expect(await videoCount(editor.openid)).toBe(before + 3);

    for (const text of [run.stdout, run.stderr]) expect(text).not.toContain(editorKey);
  });

  it('a re-run updates the videos with an external_id instead of adding them', async () => {
    const file = writeLines('rerun.jsonl', [good({ external_id: 'rerun-1', title: 'v1' }), good({ external_id: 'rerun-2', title: 'v1' })]);
    const first = await cli(['publish', file], envFor(editorKey));
    expect(first.code).toBe(0);
    const count = await videoCount(editor.openid);
    const updated = writeLines('rerun.jsonl', [good({ external_id: 'rerun-1', title: 'v2' }), good({ external_id: 'rerun-2', title: 'v2' })]);
    const second = await cli(['publish', updated, '--concurrency', '2'], envFor(editorKey));
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('published 2 of 2 lines');
    expect(await videoCount(editor.openid)).toBe(count);
    expect(ndjson(second.stdout).map((o) => o.vid).sort()).toEqual(ndjson(first.stdout).map((o) => o.vid).sort());
  });

  it('refuses a line with a field a video does not have, in the words of the server, published or dry run', async () => {
    const line = good({ titel: 'typo' });
    const server = await api.post<unknown>('/api/v1/videos', { token: editorKey, body: JSON.parse(line) });
    expect(server.status).toBe(400);
    const file = writeLines('unknown-field.jsonl', [line]);
    for (const extra of [[], ['--dry-run']]) {
      const run = await cli(['publish', file, ...extra], envFor(editorKey));
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`line 1: VALIDATION_ERROR: ${(server.body as { error: string }).error}`);
    }
  });

  it('the example file of docs/cli.md publishes cleanly', async () => {
    const run = await cli(['publish', resolve(import.meta.dirname, '../../docs/examples/videos.jsonl')], envFor(editorKey));
    expect(run.stderr).toContain('published 3 of 3 lines');
    expect(run.code).toBe(0);
  });

  it('stops at a refused credential, reports the lines not attempted, and never prints the key', async () => {
    const nobody = await signUp(api);
    const key = (await api.post<{ api_key: string }>('/api/v1/api-keys', { token: nobody.token, body: { name: 'no role' } })).data.api_key;
    const file = writeLines('forbidden.jsonl', Array.from({ length: 10 }, (_, i) => good({ title: `n${i}` })));
    const run = await cli(['publish', file, '--concurrency', '1', '--verbose'], envFor(key));
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/line 1: FORBIDDEN/);
    expect(run.stderr).toContain('9 not attempted: stopped after 403 FORBIDDEN');
    expect(await videoCount(nobody.openid)).toBe(0);
    const bad = await cli(['publish', file], envFor(`${key.slice(0, -4)}XXXX`));
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/line \d+: AUTH_ERROR/);
    for (const text of [run.stdout, run.stderr, bad.stdout, bad.stderr]) {
      expect(text).not.toContain(key);
      expect(text).not.toContain(key.slice(3));
    }
  });
});

describe('expohub publish: retries', () => {
  let proxy: Server;
  let proxyUrl: string;
  let plan: { status: number; retryAfter: string }[] = [];
  let seen = 0;
  /** When each request reached the proxy (ms, monotonic). */
  let arrivals: number[] = [];

  beforeAll(async () => {
    // Answers from `plan` first (like a throttled gateway would), then forwards to the real server.
    proxy = createServer((req, res) => {
      seen += 1;
      arrivals.push(performance.now());
      const next = plan.shift();
      if (next) {
        res.writeHead(next.status, { 'content-type': 'application/json', 'retry-after': next.retryAfter });
        res.end(JSON.stringify({ code: next.status === 429 ? 'RATE_LIMITED' : 'UNAVAILABLE', error: 'slow down' }));
        return;
      }
      const target = new URL(req.url ?? '/', stack.url);
      const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((r) => proxy.close(() => r())));

  it('retries 503 and 429 honouring Retry-After, then succeeds', async () => {
    plan = [
      { status: 503, retryAfter: '0' },
      { status: 429, retryAfter: '2' },
    ];
    seen = 0;
    arrivals = [];
    const run = await cli(['publish', writeLines('retry.jsonl', [good({ external_id: 'retry-1' })])], envFor(editorKey, proxyUrl));
    expect(run.code).toBe(0);
    expect(seen).toBe(3);
    expect(run.stderr).toContain('published 1 of 1 lines');
    // The CLI's own backoff is at most 0.5 s after a first attempt and 1 s after a second: the gaps
    // tell whether it followed the server. A fixed delay cannot be both under 1.5 s and at least 2 s.
    const [afterZero, afterTwo] = [arrivals[1]! - arrivals[0]!, arrivals[2]! - arrivals[1]!];
    expect(afterZero).toBeLessThan(1500); // Retry-After: 0 is not waited long
    expect(afterTwo).toBeGreaterThanOrEqual(2000); // Retry-After: 2 was waited out
    expect(afterTwo).toBeLessThan(4000);
  });

  it('gives up after --max-attempts and reports the line', async () => {
    plan = Array.from({ length: 5 }, () => ({ status: 429, retryAfter: '0' }));
    seen = 0;
    const run = await cli(['publish', writeLines('throttled.jsonl', [good({ external_id: 'retry-2' })]), '--max-attempts', '2'], envFor(editorKey, proxyUrl));
    expect(run.code).toBe(1);
    expect(seen).toBe(2);
    expect(run.stderr).toContain('line 1: RATE_LIMITED: slow down');
    plan = [];
  });
});

describe('expohub export', () => {
  beforeAll(async () => {
    const video = await api.post<{ video: { vid: string } }>('/api/v1/videos', { token: editor.token, body: JSON.parse(good({ title: 'commented' })) });
    for (const [who, content] of [
      [editor, 'one'],
      [editor, '两条'],
      [admin, 'three'],
    ] as const) {
      const res = await hub(api, 'comment_set', { openid: who.openid, token: who.token, vid: video.data.video.vid, content });
      expect(res.status).toBe(200);
    }
  });

  it('writes every comment the key may see as NDJSON, following the cursor to the end', async () => {
    const run = await cli(['export', 'comments', '--limit', '1'], envFor(editorKey));
    expect(run.code).toBe(0);
    const rows = ndjson(run.stdout);
    expect(rows.map((r) => r.content).sort()).toEqual(['one', '两条'].sort());
    expect(rows.every((r) => r.openid === editor.openid)).toBe(true);
    expect(run.stderr).toContain('exported 2 comments in 2 pages');
    expect(run.stdout).not.toContain(editorKey);
    expect(run.stderr).not.toContain(editorKey);
  });

  it('an admin key exports every account as NDJSON', async () => {
    const key = (await api.post<{ api_key: string }>('/api/v1/api-keys', { token: admin.token, body: { name: 'admin export' } })).data.api_key;
    const run = await cli(['export', 'accounts', '--limit', '2'], envFor(key));
    expect(run.code).toBe(0);
    const rows = ndjson(run.stdout);
    expect(rows.map((r) => r.openid)).toEqual(expect.arrayContaining([admin.openid, editor.openid]));
    expect(rows.find((r) => r.openid === editor.openid)?.phone).toBe(editor.phone);
  });

  it('fails with exit 3 and the envelope error for a revoked key', async () => {
    const created = await api.post<{ api_key: string; key: { id: number } }>('/api/v1/api-keys', { token: editor.token, body: { name: 'revoked' } });
    expect((await api.post(`/api/v1/api-keys/${created.data.key.id}/revoke`, { token: editor.token })).status).toBe(200);
    const run = await cli(['export', 'comments', '--verbose'], envFor(created.data.api_key));
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('AUTH_ERROR');
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toContain(created.data.api_key);
  });
});

describe('expohub account delete', () => {
  let n = 0;
  /** A config directory holding a stored login of `who` for this server, as "expohub login" leaves it. */
  function storedLoginOf(who: SignedUp): string {
    const config = join(dir, `account-${++n}`);
    mkdirSync(config, { mode: 0o700 });
    const login = { token: who.token, openid: who.openid, expires_at: '2099-01-01T00:00:00.000Z', saved_at: new Date().toISOString() };
    writeFileSync(join(config, 'credentials.json'), JSON.stringify({ version: 1, current: stack.url, logins: { [stack.url]: login } }), { mode: 0o600 });
    return config;
  }
  const meStatus = async (token: string) => (await api.get('/api/v1/me', { token })).status;

  /** The CLI at a terminal: util-linux `script` gives it a pseudo-terminal, whose input is `typed`. */
  function cliAtTerminal(args: string[], config: string, typed: string): Promise<CliRun> {
    return new Promise((resolveRun, reject) => {
      const base: NodeJS.ProcessEnv = { ...process.env, EXPOHUB_CONFIG_DIR: config, EXPOHUB_URL: stack.url };
      delete base.EXPOHUB_KEY;
      const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
      const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { env: base, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let answered = false;
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (answered || !stdout.includes('Type "delete"')) return;
        answered = true;
        child.stdin.write(`${typed}\n`);
      });
      child.once('error', reject);
      child.once('close', (code) => resolveRun({ code, stdout, stderr: '' }));
    });
  }

  it('refuses an access key and, off a terminal, runs only with --yes; then deletes with the stored login, says the deletion and forgets the login', async () => {
    const member = await signUp(api);
    const key = (await api.post<{ api_key: string }>('/api/v1/api-keys', { token: member.token, body: { name: 'cannot delete' } })).data.api_key;
    const config = storedLoginOf(member);

    const withKey = await cli(['account', 'delete', '--yes'], { ...envFor(key), EXPOHUB_CONFIG_DIR: config });
    expect(withKey.code).toBe(3);
    expect(withKey.stderr).toContain('an access key cannot delete its account');
    expect(withKey.stderr).not.toContain(key);
    const unconfirmed = await cli(['account', 'delete'], { EXPOHUB_URL: stack.url, EXPOHUB_CONFIG_DIR: config });
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('pass --yes to confirm when not at a terminal');
    expect(await meStatus(member.token)).toBe(200);

    const run = await cli(['account', 'delete', '--yes'], { EXPOHUB_URL: stack.url, EXPOHUB_CONFIG_DIR: config });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Deleted account ${member.openid} on ${stack.url}: deletion del_\\w+ is erasing \\(requested \\d{4}-`));
    expect(await meStatus(member.token)).toBe(401);
    expect(await meStatus(key)).toBe(401);
    // The stored token is refused from now on: it is gone from the config directory.
    expect(existsSync(join(config, 'credentials.json'))).toBe(false);
    for (const text of [run.stdout, run.stderr]) expect(text).not.toContain(member.token);
  });

  it('at a terminal, deletes only when "delete" is typed', async () => {
    const member = await signUp(api);
    const config = storedLoginOf(member);
    const declined = await cliAtTerminal(['account', 'delete'], config, 'yes');
    expect(declined.stdout).toContain('comment deleted');
    expect(declined.stdout).toContain('Not deleted.');
    expect(declined.code).toBe(1);
    expect(await meStatus(member.token)).toBe(200);

    const confirmed = await cliAtTerminal(['account', 'delete'], config, 'delete');
    expect(confirmed.stdout).toContain(`Type "delete" to delete account ${member.openid} on ${stack.url}:`);
    expect(confirmed.stdout).toMatch(/deletion del_\w+ is erasing/);
    expect(confirmed.code).toBe(0);
    expect(await meStatus(member.token)).toBe(401);
  });

  it('--wait --json follows the deletion until erased and prints its data', async () => {
    const member = await signUp(api);
    const running = cli(['account', 'delete', '--yes', '--wait', '--json'], { EXPOHUB_URL: stack.url, EXPOHUB_CONFIG_DIR: storedLoginOf(member) });
    // The erasure runs from the table's stream: applied here once the deletion is there.
    await expect.poll(() => meStatus(member.token)).toBe(401);
    await settleStreams();
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    const data = JSON.parse(run.stdout) as { deletion: { id: string; state: string; completed_at: string | null } };
    expect(data.deletion).toMatchObject({ id: expect.stringMatching(/^del_/), state: 'erased', completed_at: expect.any(String) });
    expect((await api.get<{ deletion: { state: string } }>(`/api/v1/deletions/${data.deletion.id}`)).data.deletion.state).toBe('erased');
  });
});

describe('expohub account export', () => {
  /** The records of every page of `GET /api/v1/me/data`, read here through the API. */
  async function recordsOf(token: string) {
    const records: unknown[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; data: { records: unknown[]; next_cursor: string | null } } = await api.get(`/api/v1/me/data${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
      expect(res.status).toBe(200);
      records.push(...res.data.records);
      cursor = res.data.next_cursor;
    } while (cursor);
    return records;
  }

  it('follows the cursor to the end and writes one JSON document, to stdout or with -o to a file only its owner can read', async () => {
    const run = await cli(['account', 'export'], envFor(editor.token));
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as { format: string; generated_at: string; account: Record<string, unknown>; records: { type: string }[] };
    expect(doc).toMatchObject({ format: 'expohub-personal-data/1', generated_at: expect.any(String), account: { openid: editor.openid, phone: editor.phone } });
    // Every record of every page, in order: more than one page of 2.
    expect(doc.records).toEqual(await recordsOf(editor.token));
    expect(doc.records.length).toBeGreaterThan(2);
    expect(doc.records.map((r) => r.type)).toEqual(expect.arrayContaining(['key', 'comment', 'video', 'audit']));
    expect(run.stderr).toMatch(new RegExp(`exported ${doc.records.length} records of your account in \\d+ pages`));
    expect(run.stderr).not.toContain(editor.token);

    const file = join(dir, 'my-data.json');
    const toFile = await cli(['account', 'export', '-o', file], envFor(editor.token));
    expect(toFile.code, toFile.stderr).toBe(0);
    expect(toFile.stdout).toBe('');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ...doc, generated_at: expect.any(String) });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('needs a login token: with an access key it exits 3 before any request', async () => {
    const run = await cli(['account', 'export'], envFor(editorKey));
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('downloading your data needs a login token');
    expect(run.stdout).toBe('');
  });
});

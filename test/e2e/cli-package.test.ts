import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';

import { clock } from '../../lib/platform/clock.js';
import { getAccount } from '../../lib/entities/accounts/accounts.js';
import { ADMIN_PHONE } from '../support/constants.js';
import { hub, latestCode, newPhone } from '../support/hub-fixtures.js';
import { ndjson, type CliRun } from '../support/cli-run.js';
import { packAndInstall } from '../support/packed.js';
import { apiClient, startTestStack } from '../support/stack.js';
import { DAY_MS, HOUR_MS, pinInsideWindow, resumeClock } from '../support/clock-windows.js';

/**
 * @expohub/cli as a user gets it: `npm pack` of cli/, installed from the tarball into an empty
 * directory (no repository, no network: the package has no dependencies), then the installed
 * `expohub` command driving a local server: login with an SMS code, keys, publish --dry-run, export
 * with --cursor and --since, --json, exit codes.
 */
const run = promisify(execFile);
const CLI_DIR = resolve(import.meta.dirname, '../../cli');

let stack: Awaited<ReturnType<typeof startTestStack>>;
let api: ReturnType<typeof apiClient>;
let work: string;
let home: string;
let installed: string;
let tarball: string;

/**
 * Runs the installed command with HOME in a scratch directory (so the config directory is
 * ~/.config/expohub there) and no EXPOHUB_* variable unless given. `answer` is called with the
 * stderr so far each time it grows, and returns a line to type on stdin (once per prompt).
 */
function expohub(args: string[], env: Record<string, string> = {}, answer?: (stderr: string) => Promise<string | undefined>): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('EXPOHUB_') && name !== 'XDG_CONFIG_HOME'));
    const child = spawn(installed, args, { env: { ...base, HOME: home, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let answered = 0;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const prompts = stderr.split('Code: ').length - 1;
      if (answer && prompts > answered) {
        answered = prompts;
        void answer(stderr).then((line) => (line === undefined ? child.stdin.end() : child.stdin.write(`${line}\n`)), reject);
      }
    });
    if (!answer) child.stdin.end();
    child.once('error', reject);
    child.once('close', (code) => resolveRun({ code, stdout, stderr }));
  });
}

/** `expohub login` as a person does it: the code read from the local SMS channel and typed in. */
const login = (phone: string, extra: string[] = [], code?: () => Promise<string>) =>
  expohub(['login', '--url', stack.url, '--phone', phone, ...extra], {}, async () => (code ? code() : latestCode(api, phone)));

const credentialsPath = () => join(home, '.config', 'expohub', 'credentials.json');
const credentials = () => JSON.parse(readFileSync(credentialsPath(), 'utf8')) as { current: string; logins: Record<string, { token: string; openid: string; expires_at: string }> };

const video = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ title: 'From the packed CLI', video_url: 'https://cdn.example.com/p.mp4', cover_url: 'https://cdn.example.com/p.jpg', duration_s: 30, tags: ['cli'], ...extra });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'expohub-cli-package-'));
  home = join(work, 'home');
  mkdirSync(home);
  const packed = await packAndInstall(CLI_DIR, work);
  tarball = packed.tarball;
  const { app } = packed;
  installed = join(app, 'node_modules', '.bin', 'expohub');
  stack = await startTestStack();
  api = apiClient(stack.url);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the package', () => {
  it('is @expohub/cli with the command, its sources and README only, and runs from the install', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean).sort();
    expect(files).toContain('package/bin/expohub.mjs');
    expect(files).toContain('package/src/main.mjs');
    expect(files).toContain('package/README.md');
    expect(files.filter((f) => !/^package\/(bin|src)\/.+\.mjs$|^package\/(README\.md|package\.json)$/.test(f))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(work, 'app', 'node_modules', '@expohub', 'cli', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: '@expohub/cli', bin: { expohub: 'bin/expohub.mjs' }, engines: { node: '>=20' } });
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(existsSync(join(work, 'app', 'node_modules', '@expohub', 'cli', 'lib'))).toBe(false);

    const version = await expohub(['--version']);
    expect(version).toMatchObject({ code: 0, stdout: `${String(manifest.version)}\n` });
    const help = await expohub(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('expohub login');
    expect(help.stdout).toContain('Exit codes: 0 done');
  });
});

describe('login, whoami, logout', () => {
  it('signs in with the SMS code, keeps the token in ~/.config/expohub with mode 600, never prints it', async () => {
    const signedIn = await login(ADMIN_PHONE);
    expect(signedIn.code, signedIn.stderr).toBe(0);
    expect(signedIn.stderr).toContain(`A 6-digit code was sent to ${ADMIN_PHONE}`);
    expect(signedIn.stdout).toMatch(/^Signed in to http:\/\/127\.0\.0\.1:\d+ as u_\S+ \(a new account\)\. The token is saved in .+credentials\.json \(mode 600\)/);

    const file = credentialsPath();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.config', 'expohub')).mode & 0o777).toBe(0o700);
    const stored = credentials();
    expect(stored.current).toBe(stack.url);
    const login0 = stored.logins[stack.url]!;
    expect(login0.token.split('.')).toHaveLength(3);
    expect(readFileSync(file, 'utf8')).not.toContain(ADMIN_PHONE.slice(1));
    for (const text of [signedIn.stdout, signedIn.stderr]) expect(text).not.toContain(login0.token);

    // The stored login is used without any variable; the server is the login's.
    const me = await expohub(['whoami', '--json']);
    expect(me.code).toBe(0);
    expect(JSON.parse(me.stdout)).toEqual({ url: stack.url, user_id: login0.openid, auth_type: 'jwt', scopes: [], roles: ['admin'], terms: expect.objectContaining({ current_version: '1' }) });
    expect(me.stdout + me.stderr).not.toContain(login0.token);
  });

  it('a wrong code is exit 3 and stores nothing; signing in again ends the previous session', async () => {
    const before = credentials().logins[stack.url]!;
    const phone = newPhone();
    const wrong = await login(phone, [], async () => {
      const code = await latestCode(api, phone);
      return code === '000000' ? '111111' : '000000';
    });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toContain('AUTH_ERROR');
    expect(wrong.stderr).toContain('not signed in');
    expect(credentials().logins[stack.url]).toEqual(before);
    // A second code within 60 s: the limit is reported with the wait, not waited out.
    const limited = await login(phone);
    expect(limited.code).toBe(6);
    expect(limited.stderr).toMatch(/RATE_LIMITED: .*\(try again in \d+ s\)/);

    clock.advance(61_000); // one code per phone per 60 s
    const again = await login(ADMIN_PHONE, ['--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ url: stack.url, openid: before.openid, new_account: false });
    const after = credentials().logins[stack.url]!;
    expect(after.token).not.toBe(before.token);
    // The old token was passed as token0: the server ended it.
    expect((await api.get('/api/v1/me', { token: before.token })).status).toBe(401);
    expect((await api.get('/api/v1/me', { token: after.token })).status).toBe(200);
  });

  it('non-interactive login without --phone, and a login without a server, are usage errors (exit 2)', async () => {
    expect((await expohub(['login', '--url', stack.url])).code).toBe(2);
    const noServer = await expohub(['login', '--phone', ADMIN_PHONE], { EXPOHUB_CONFIG_DIR: join(work, 'empty-config') });
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toContain('login needs a server');
  });
});

describe('keys', () => {
  it('create (the key alone on stdout), list with the hint, usage, revoke, delete: each with its exit code', async () => {
    // The server's clock (it runs in this process) stopped at noon of a UTC day ahead: the key's
    // requests and the usage that counts them are of one day. It runs on from there after the test.
    pinInsideWindow(DAY_MS, 12 * HOUR_MS);
    onTestFinished(resumeClock);
    const created = await expohub(['keys', 'create', '--name', 'packed ci', '--scope', 'videos:write', '--scope', 'export:read', '--rate-limit', '120']);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^ak_[A-Za-z0-9]{32}$/);
    expect(created.stderr).toContain('This is the only time the key is shown');
    expect(created.stderr).not.toContain(key);

    const list = await expohub(['keys', 'list', '--json']);
    expect(list.code).toBe(0);
    const listed = (JSON.parse(list.stdout) as { id: number; name: string; key_hint: string; scopes: string[]; rate_limit_per_minute: number; status: string }[]).find((k) => k.name === 'packed ci')!;
    expect(listed).toMatchObject({ key_hint: `ak_…${key.slice(-4)}`, scopes: ['videos:write', 'export:read'], rate_limit_per_minute: 120, status: 'valid' });
    expect(list.stdout).not.toContain(key);
    const table = await expohub(['keys', 'list']);
    expect(table.stdout).toMatch(new RegExp(`^${listed.id}\\s+packed ci\\s+ak_…${key.slice(-4)}\\s+valid\\s+videos:write,export:read\\s+120`, 'm'));

    // The key works, and its calls show in its usage.
    for (let i = 0; i < 3; i++) expect((await expohub(['whoami'], { EXPOHUB_KEY: key })).code).toBe(0);
    const usage = await expohub(['keys', 'usage', String(listed.id), '--json']);
    expect(usage.code).toBe(0);
    const days = (JSON.parse(usage.stdout) as { days: { date: string; requests: number }[] }).days;
    expect(days).toHaveLength(30);
    expect(days.at(-1)).toEqual({ date: clock.nowIso().slice(0, 10), requests: 3 });
    const chart = await expohub(['keys', 'usage', String(listed.id)]);
    expect(chart.stdout).toContain(`${clock.nowIso().slice(0, 10)}  3  ${'#'.repeat(40)}`);
    expect(chart.stdout).toContain(`3 requests in 30 days (UTC), key ${listed.id}`);

    // An access key cannot manage keys: the command says to sign in, exit 3.
    const withKey = await expohub(['keys', 'list'], { EXPOHUB_KEY: key, EXPOHUB_URL: stack.url, EXPOHUB_CONFIG_DIR: join(work, 'empty-config') });
    expect(withKey.code).toBe(3);
    expect(withKey.stderr).toContain('managing keys needs a login token');

    const revoked = await expohub(['keys', 'revoke', String(listed.id)]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked key ${listed.id}`);
    const refused = await expohub(['whoami'], { EXPOHUB_KEY: key });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('AUTH_ERROR');
    expect(refused.stderr).not.toContain(key);

    expect((await expohub(['keys', 'delete', String(listed.id)])).code).toBe(2); // not a terminal: --yes needed
    const deleted = await expohub(['keys', 'delete', String(listed.id), '--yes', '--json']);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ deleted: true, id: listed.id });
    const missing = await expohub(['keys', 'usage', String(listed.id), '--json']);
    expect(missing.code).toBe(5);
    expect(ndjson(missing.stderr).at(-1)).toMatchObject({ error: { code: 'NOT_FOUND', status: 404 }, exit_code: 5 });
  });
});

describe('publish --dry-run and export --cursor/--since, with an access key', () => {
  let key: string;
  let dir: string;
  beforeAll(async () => {
    key = (await expohub(['keys', 'create', '--name', 'pipeline'])).stdout.trim();
    dir = join(work, 'files');
    mkdirSync(dir);
  });
  const withKey = () => ({ EXPOHUB_KEY: key });

  it('publish --dry-run checks every line with the server, says create or update, and publishes nothing', async () => {
    const openid = credentials().logins[stack.url]!.openid;
    const file = join(dir, 'videos.jsonl');
    writeFileSync(file, [video({ external_id: 'pk-1' }), video({ external_id: 'pk-2', duration_s: 0 }), video()].join('\n'));
    const count = (await getAccount(openid, true))?.video_count ?? 0;

    const dry = await expohub(['publish', file, '--dry-run'], withKey());
    expect(dry.code).toBe(1);
    expect(ndjson(dry.stdout).sort((a, b) => Number(a.line) - Number(b.line))).toEqual([
      { line: 1, action: 'create', vid: null, external_id: 'pk-1' },
      { line: 3, action: 'create', vid: null, external_id: null },
    ]);
    expect(dry.stderr).toMatch(/line 2: VALIDATION_ERROR: .*duration_s/);
    expect(dry.stderr).toContain('dry run, nothing published: 2 of 3 lines would publish (2 new, 0 updates); 1 failed (line 2)');
    expect((await getAccount(openid, true))?.video_count ?? 0).toBe(count);

    writeFileSync(file, video({ external_id: 'pk-1' }));
    const real = await expohub(['publish', file, '--json'], withKey());
    expect(real.code).toBe(0);
    const vid = ndjson(real.stdout)[0]!.vid;
    expect(ndjson(real.stderr).at(-1)).toEqual({ summary: { dry_run: false, lines: 1, succeeded: 1, created: 1, updated: 0, failed_lines: [], not_attempted: 0 } });
    const again = await expohub(['publish', file, '--dry-run'], withKey());
    expect(again.code).toBe(0);
    expect(ndjson(again.stdout)).toEqual([{ line: 1, action: 'update', vid, external_id: 'pk-1' }]);
    expect((await getAccount(openid, true))?.video_count ?? 0).toBe(count + 1);
  });

  it('export resumes from --cursor, runs incrementally with --since, and suggests the next --since', async () => {
    const { openid, token } = credentials().logins[stack.url]!;
    const vid = (await api.post<{ video: { vid: string } }>('/api/v1/videos', { token, body: JSON.parse(video({ title: 'commented' })) })).data.video.vid;
    const say = async (content: string) => expect((await hub(api, 'comment_set', { openid, token, vid, content })).status).toBe(200);
    for (const content of ['c1', 'c2', 'c3', 'c4', 'c5']) await say(content);

    const all = await expohub(['export', 'comments', '--limit', '2', '--json'], withKey());
    expect(all.code).toBe(0);
    expect(ndjson(all.stdout).map((r) => r.content)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    const summary = ndjson(all.stderr).at(-1) as { summary: { rows: number; pages: number; next_since: string } };
    expect(summary.summary).toMatchObject({ kind: 'comments', rows: 5, pages: 3 });
    expect(Date.parse(summary.summary.next_since)).toBeLessThan(Date.now());

    // Resume after the first page, as the message of an interrupted run says.
    const first = await api.get<{ next_cursor: string }>('/api/v1/export/comments?limit=2', { token: key });
    const resumed = await expohub(['export', 'comments', '--limit', '2', '--cursor', first.data.next_cursor], withKey());
    expect(resumed.code).toBe(0);
    expect(ndjson(resumed.stdout).map((r) => r.content)).toEqual(['c3', 'c4', 'c5']);
    expect(resumed.stderr).toMatch(/exported 3 comments in 2 pages; for the rows added from now on run: expohub export comments --since \d{4}-/);

    clock.advance(1000);
    const mark = clock.nowIso();
    await say('c6');
    const incremental = await expohub(['export', 'comments', '--since', mark], withKey());
    expect(incremental.code).toBe(0);
    expect(ndjson(incremental.stdout).map((r) => r.content)).toEqual(['c6']);

    const badSince = await expohub(['export', 'comments', '--since', 'last tuesday'], withKey());
    expect(badSince.code).toBe(1);
    expect(badSince.stderr).toContain('VALIDATION_ERROR: Invalid parameter "since"');
    const badCursor = await expohub(['export', 'comments', '--cursor', 'not-a-cursor'], withKey());
    expect(badCursor.code).toBe(1);
    expect(badCursor.stderr).toContain('"cursor"');
  });

  it('an interrupted export says how to resume, with the cursor of the last page written', async () => {
    // A server that goes away after the first page: the CLI gets a refused connection on page 2.
    const { createServer } = await import('node:http');
    let pages = 0;
    const proxy = createServer((req, res) => {
      pages += 1;
      if (pages > 1) {
        req.socket.destroy();
        return;
      }
      void fetch(new URL(req.url ?? '/', stack.url), { headers: { authorization: req.headers.authorization ?? '' } }).then(async (up) => {
        res.writeHead(up.status, { 'content-type': 'application/json' });
        res.end(await up.text());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    try {
      const cut = await expohub(['export', 'comments', '--limit', '2', '--max-attempts', '1'], { ...withKey(), EXPOHUB_URL: url });
      expect(cut.code).toBe(1);
      expect(ndjson(cut.stdout).map((r) => r.content)).toEqual(['c1', 'c2']);
      const resume = /to resume after them run: expohub export comments --cursor (\S+)/.exec(cut.stderr);
      expect(resume, cut.stderr).not.toBeNull();
      const rest = await expohub(['export', 'comments', '--cursor', resume![1]!], withKey());
      expect(ndjson(rest.stdout).map((r) => r.content)).toEqual(['c3', 'c4', 'c5', 'c6']);
    } finally {
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it('logout ends the session on the server and removes the stored token; the next command is exit 3 and says to sign in', async () => {
    const { token } = credentials().logins[stack.url]!;
    expect((await api.get('/api/v1/me', { token })).status).toBe(200);
    const out = await expohub(['logout']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`Signed out of ${stack.url}: the session is ended on the server`);
    expect(existsSync(credentialsPath())).toBe(false);
    expect((await api.get('/api/v1/me', { token })).status).toBe(401);
    expect((await expohub(['logout', '--url', stack.url])).stdout).toContain('Not signed in');
    const after = await expohub(['keys', 'list', '--url', stack.url]);
    expect(after.code).toBe(3);
    expect(after.stderr).toContain(`not signed in to ${stack.url}`);
  });
});

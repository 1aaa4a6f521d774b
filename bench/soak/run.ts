/**
 * `npm run soak [-- --seconds 300] [--users 50] [--videos 120] [--authors 10] [--think-ms 100] [--out file.json]`
 *
 * A soak run, not a test (not part of `npm test`): many simulated users send a mix of the hub's and
 * the key service's operations over real HTTP to a local server started here, in this process, on a
 * DynamoDB Local of its own (in memory). A ledger keeps what every acknowledged answer says the store
 * holds; at the end every count and set in the store is compared with it. Exits 1 on any 500, any
 * answer outside the contract's envelope, any unexpected status or broken guarantee, any request
 * that got no answer, and any ledger mismatch.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { startBenchEnvironment } from '../environment.js';
import { SoakClient, SoakRecorder } from './client.js';
import { Ledger } from './ledger.js';
import { mismatchLines, opRows, opTable, phaseLine } from './report.js';

const DEFAULTS = { seconds: 300, users: 50, videos: 120, authors: 10, 'think-ms': 100 };
type Option = keyof typeof DEFAULTS;

function parseArgs(argv: string[]) {
  const options = { ...DEFAULTS };
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    const name = flag.replace(/^--/, '');
    if (flag === '--help' || flag === '-h') {
      console.log(`usage: npm run soak -- ${Object.entries(DEFAULTS).map(([k, v]) => `[--${k} ${v}]`).join(' ')} [--out file.json]`);
      process.exit(0);
    }
    const value = inline ?? argv[++i];
    if (name === 'out') out = value;
    else if (Object.hasOwn(DEFAULTS, name) && /^\d+$/.test(value ?? '')) options[name as Option] = Number(value);
    else throw new Error(`bad argument ${argv[i]} (try --help)`);
  }
  if (options.users < 2 || options.authors < 1 || options.videos < 1 || options.seconds < 1) throw new Error('--users 2 or more; --authors, --videos and --seconds 1 or more');
  options.authors = Math.min(options.authors, options.users);
  return { ...options, out: out && resolve(out) };
}

const options = parseArgs(process.argv.slice(2));
const loadAtStart = loadavg().map((l) => Math.round(l * 100) / 100);
const env = await startBenchEnvironment();
// The bench keeps the handlers silent; here an unhandled error (a 500) is logged with its request id.
Object.assign(process.env, { LOG_LEVEL: 'ERROR', POWERTOOLS_LOG_LEVEL: 'ERROR' });
// Imported now: lib/platform/config.ts reads the environment once, at import.
const { startLocalServer } = await import('../../local/server.js');
const { DEV_ROUTES } = await import('../../local/dev-routes.js');
const { importVideos } = await import('../../lib/entities/catalog/import.js');
const { inParallel } = await import('../../lib/platform/db/batch.js');
const { catalogVideo } = await import('../catalog.js');
const { newPhone, quietSms } = await import('../fixtures.js');
const { SoakUser, runUser, signIn } = await import('./user.js');
const { checkStore } = await import('./final-check.js');

await quietSms();
const server = await startLocalServer({ port: 0, devRoutes: DEV_ROUTES });
let failed = true;
try {
  console.log(
    `soak: ${options.users} users, ${options.seconds} s, ${options.videos} videos by ${options.authors} authors, think time 0-${2 * options['think-ms']} ms; ` +
      `server ${server.url} in this process, DynamoDB Local in memory; SMS (but the per-phone interval) and comment rate limits raised (bench/environment.ts)`,
  );
  const setup = new SoakRecorder();
  const client = new SoakClient(server.url, setup);
  const ledger = new Ledger();
  const users: InstanceType<typeof SoakUser>[] = [];
  await inParallel(
    Array.from({ length: options.users }, (_, i) => i),
    8,
    async (i) => {
      const account = await signIn(client, newPhone());
      ledger.addAccount(account.openid);
      users[i] = new SoakUser(`u${i}`, account);
    },
  );
  const accounts = users.map((u) => u.account);
  // The catalog: new videos without likes or comments, so that every count starts at 0.
  const nowMs = Date.now();
  const videos = Array.from({ length: options.videos }, (_, i) => ({ ...catalogVideo(i, accounts[i % options.authors]!.openid, nowMs, 30, 'sv'), like_count: 0 }));
  await importVideos(videos);
  for (const v of videos) ledger.addVideo(v.vid, v.author_openid);
  console.log(phaseLine('setup', setup));

  const load = new SoakRecorder();
  client.recorder = load;
  const started = Date.now();
  const ctx = { client, ledger, vids: videos.map((v) => v.vid), accounts, deadline: started + options.seconds * 1000, thinkMs: options['think-ms'] };
  const progress = setInterval(() => console.log(`  ${Math.round((Date.now() - started) / 1000)} s: ${load.requests} requests, ${load.failures.length} failures, ${accounts.length} accounts`), 30_000);
  try {
    await Promise.all(users.map((u) => runUser(u, ctx)));
  } finally {
    clearInterval(progress);
  }
  const seconds = (Date.now() - started) / 1000;
  const loadAtEnd = loadavg().map((l) => Math.round(l * 100) / 100);

  const check = new SoakRecorder();
  client.recorder = check;
  // Likes and comments counts follow from the stream: checked once the processor has caught up.
  await env.settleStreams();
  const result = await checkStore(client, ledger, accounts);

  const rows = opRows(load);
  console.log(`\nLoad: ${Math.round(seconds)} s, ${options.users} users, ${load.requests} requests, ${Math.round(load.requests / seconds)} req/s\n${opTable(rows)}`);
  console.log(`\n${phaseLine('load', load)}\n${phaseLine('final check', check)}`);
  const failures = [...setup.failures, ...load.failures, ...check.failures];
  for (const f of failures.slice(0, 50)) console.log(`  FAIL ${f.kind} ${f.op}: ${f.detail}${f.requestId ? ` (x-request-id ${f.requestId})` : ''}`);
  if (failures.length > 50) console.log(`  (+${failures.length - 50} more failures)`);
  const { checked } = result;
  console.log(
    `\nLedger check: ${result.mismatches.length === 0 ? 'PASS' : `FAIL, ${result.mismatches.length} mismatches`} ` +
      `(${checked.accounts} accounts, ${checked.videos} videos, ${checked.likes} likes, ${checked.follows} follows, ${checked.comments} comments, ${checked.keys} keys)`,
  );
  for (const line of mismatchLines(result.mismatches)) console.log(line);
  failed = failures.length > 0 || result.mismatches.length > 0;
  console.log(`\nsoak ${failed ? 'FAILED' : 'passed'}; load average ${loadAtStart.join(' ')} at the start, ${loadAtEnd.join(' ')} at the end of the load (${availableParallelism()} CPUs)`);

  if (options.out) {
    const summary = {
      date: new Date(started).toISOString(),
      settings: { ...options, out: undefined },
      cpus: availableParallelism(),
      loadavg: { start: loadAtStart, endOfLoad: loadAtEnd },
      seconds: Math.round(seconds * 10) / 10,
      requests: load.requests,
      rps: Math.round((load.requests / seconds) * 10) / 10,
      ops: rows,
      setupRequests: setup.requests,
      checkRequests: check.requests,
      failures,
      ledger: { pass: result.mismatches.length === 0, checked, mismatches: result.mismatches },
    };
    writeFileSync(options.out, `${JSON.stringify(summary, null, 2)}\n`);
    console.log(`written to ${options.out}`);
  }
} finally {
  await server.close();
  await env.stop();
}
process.exit(failed ? 1 : 0);

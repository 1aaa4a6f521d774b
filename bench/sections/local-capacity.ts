import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { BatchGetCommand, DynamoDBDocumentClient, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { videoKeys } from '../../lib/entities/catalog/video-items.js';
import { HUB_TABLE } from '../../lib/platform/db/tables.js';
import { seededRandom } from '../../lib/platform/seeded-random.js';
import { demoVideos } from '../../local/demo-catalog.js';
import { freePort } from '../../local/dynamodb-local.js';
import { childProcessOf, cpuSeconds, isRunning, residentMb } from '../../local/process-info.js';
import { printTable } from '../format.js';

/**
 * Local runtime capacity (docs/performance.md, "Local runtime capacity"): `npm start` with
 * `DATA_DIR=memory` in a process of its own (exactly local/start.ts, the demo catalog as the
 * world's videos), loaded over HTTP by a few concurrent clients with a seeded world of N
 * interactions (likes, dislikes and views in MovieLens-like proportions), while the resident memory
 * of the server's node process and of its DynamoDB Local JVM is sampled from /proc, with the
 * answers' statuses, the timeouts and the stream lag (likes answered but not yet in the videos'
 * like_count). After the last answer: the time until every like count is exact, then SIGTERM and
 * the time until the server and the JVM are gone.
 *
 * N: LOCAL_CAPACITY_INTERACTIONS (default 20,000; 4,000 with --quick).
 */
export interface CapacityPoint {
  interactions: number;
  seconds: number;
  nodeMb: number;
  javaMb: number;
  nodeCpuS: number;
  javaCpuS: number;
  /** Likes answered and not yet counted in like_count when the point was taken. */
  lagLikes: number;
}

export interface LocalCapacityResult {
  interactions: number;
  users: number;
  videos: number;
  clients: number;
  /** HTTP calls of the load (views go 5 to a call). */
  calls: number;
  mix: { like: number; dislike: number; view: number };
  /** Server start until it printed its URL (s): DynamoDB Local, the tables, the demo catalog. */
  startSeconds: number;
  signUpSeconds: number;
  loadSeconds: number;
  interactionsPerSecond: number;
  statuses: Record<string, number>;
  timeouts: number;
  points: CapacityPoint[];
  peakNodeMb: number;
  peakJavaMb: number;
  /** Growth of the JVM's resident memory per 10,000 interactions, from the first to the last point. */
  javaMbPer10k: number;
  /** The same for node + JVM. */
  mbPer10k: number;
  maxLagLikes: number;
  /** From the last answer until every video's like_count was exact (ms); -1 when not within the cap. */
  convergenceMs: number;
  exact: boolean;
  /**
   * What the hub table's stream holds at the end (DynamoDB Local keeps every record for 24 hours,
   * in its in-memory database): records and the bytes of their images (JSON of NewImage + OldImage),
   * by the kind of item written (its keys' prefixes, `…` for a key without one).
   */
  stream: { records: number; imageMb: number; byKind: { kind: string; records: number; imageMb: number }[] };
  /** From SIGTERM until the server exited (ms), and whether its JVM was gone then. */
  stopMs: number;
  javaLeft: boolean;
  exitCode: number | null;
}

const ROOT = resolve(import.meta.dirname, '../..');
const CLIENTS = 4;
const VIDEOS = 1_500;
/** A user's interactions on average: MovieLens 100K has 106 ratings per user. */
const PER_USER = 100;
const REQUEST_TIMEOUT_MS = 15_000;
const CONVERGENCE_CAP_MS = 600_000;
const SAMPLE_MS = 2_000;

type Kind = 'like' | 'dislike' | 'view';
/** One call: a like or a dislike of one video, or views of up to VIEWS_PER_CALL videos reported with one feed call. */
interface Call {
  user: number;
  kind: Kind;
  vids: string[];
}
/** Views a client reports at once (get_next_list `view_list`), as an app reports what was on screen. */
const VIEWS_PER_CALL = 5;

/**
 * The seeded world: users with skewed activity (a few heavy, many light), videos drawn with a
 * popularity skew, at most one interaction per user and video; 55 % likes, 20 % dislikes, 25 % views,
 * interleaved across users as many people acting at once.
 */
export function capacityWorld(n: number, vids: string[], seed = 29): { users: number; calls: Call[]; mix: Record<Kind, number> } {
  const rand = seededRandom(seed);
  const users = Math.max(1, Math.ceil(n / PER_USER));
  const weights = Array.from({ length: users }, () => Math.exp(rand() * 2.5));
  const total = weights.reduce((a, b) => a + b, 0);
  const quota = weights.map((w) => Math.min(vids.length, Math.max(1, Math.round((w / total) * n))));
  let excess = quota.reduce((a, b) => a + b, 0) - n;
  for (let u = 0; excess !== 0; u = (u + 1) % users) {
    const change = excess > 0 && quota[u]! > 1 ? -1 : excess < 0 && quota[u]! < vids.length ? 1 : 0;
    quota[u]! += change;
    excess += change;
  }
  const mix: Record<Kind, number> = { like: 0, dislike: 0, view: 0 };
  const perUser: Call[][] = quota.map((q, user) => {
    const seen = new Set<number>();
    const list: Call[] = [];
    let views: Call | undefined;
    while (seen.size < q) {
      // Popularity skew: index ~ N * u^2 (a quarter of the videos get half of the interactions).
      const v = Math.floor(vids.length * rand() ** 2);
      if (seen.has(v)) continue;
      seen.add(v);
      const r = rand();
      const kind: Kind = r < 0.55 ? 'like' : r < 0.75 ? 'dislike' : 'view';
      mix[kind]++;
      if (kind !== 'view') list.push({ user, kind, vids: [vids[v]!] });
      else {
        if (!views || views.vids.length === VIEWS_PER_CALL) list.push((views = { user, kind, vids: [] }));
        views.vids.push(vids[v]!);
      }
    }
    return list;
  });
  const calls: Call[] = [];
  for (let round = 0, added = 1; added > 0; round++) {
    added = 0;
    for (const list of perUser) {
      if (round >= list.length) continue;
      calls.push(list[round]!);
      added++;
    }
  }
  return { users, calls, mix };
}

/** Every record of the hub table's stream, tallied by the kind of item written (docs/performance.md, "Local runtime capacity"). */
async function tallyStream(endpoint: string): Promise<LocalCapacityResult['stream']> {
  const config = { endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const tables = new DynamoDBClient(config);
  const streams = new DynamoDBStreamsClient(config);
  try {
    const streamArn = (await tables.send(new DescribeTableCommand({ TableName: HUB_TABLE.id }))).Table?.LatestStreamArn;
    const kinds = new Map<string, { records: number; bytes: number }>();
    const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: streamArn }))).StreamDescription?.Shards ?? [];
    for (const shard of shards) {
      let iterator = (await streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
      while (iterator) {
        const out = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
        for (const r of out.Records ?? []) {
          const prefix = (key: string | undefined) => (/^[A-Z_!]+(?=#|$)/.exec(key ?? '')?.[0] ?? '…');
          const kind = `${prefix(r.dynamodb?.Keys?.pk?.S)} / ${prefix(r.dynamodb?.Keys?.sk?.S)}`;
          const tally = kinds.get(kind) ?? { records: 0, bytes: 0 };
          tally.records++;
          tally.bytes += JSON.stringify(r.dynamodb?.NewImage ?? {}).length + JSON.stringify(r.dynamodb?.OldImage ?? {}).length;
          kinds.set(kind, tally);
        }
        // An open shard answers an empty page at its end: stop there.
        iterator = (out.Records ?? []).length > 0 ? out.NextShardIterator : undefined;
      }
    }
    const mb = (bytes: number) => Math.round(bytes / 1024 / 10.24) / 100;
    const byKind = [...kinds].map(([kind, t]) => ({ kind, records: t.records, imageMb: mb(t.bytes) })).sort((a, b) => b.imageMb - a.imageMb);
    return { records: byKind.reduce((a, k) => a + k.records, 0), imageMb: mb([...kinds.values()].reduce((a, t) => a + t.bytes, 0)), byKind };
  } finally {
    tables.destroy();
    streams.destroy();
  }
}

/** Starts local/start.ts in a process of its own; resolves with its URL and DynamoDB endpoint once it listens. */
function startServer(videos: number): Promise<{ child: ChildProcess; url: string; dynamoEndpoint: string }> {
  return freePort().then(
    (port) =>
      new Promise((resolveStart, reject) => {
        const env: NodeJS.ProcessEnv = { ...process.env };
        // The bench environment's own settings (its DynamoDB Local, its tables) are not the server's.
        for (const name of ['DYNAMODB_ENDPOINT', 'HUB_TABLE', 'API_KEYS_TABLE', 'JWT_SECRET', 'JWT_SECRET_ARN']) delete env[name];
        Object.assign(env, {
          PORT: String(port),
          DATA_DIR: 'memory',
          DEMO_VIDEOS: String(videos),
          // Sign-up of the world's users from one address: the SMS limits are for the public.
          RATE_SMS_IP_HOURLY: '1000000',
          SMS_DAILY_CAP: '1000000',
        });
        const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let errors = '';
        child.stderr!.on('data', (d: Buffer) => (errors = (errors + d.toString()).slice(-4000)));
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const url = /expohub is running at (\S+)/.exec(out)?.[1];
          const dynamoEndpoint = /DynamoDB Local at (\S+)/.exec(out)?.[1];
          if (url && dynamoEndpoint) {
            out = '';
            resolveStart({ child, url, dynamoEndpoint });
          } else out = out.slice(-4000);
        });
        child.once('exit', (code) => reject(new Error(`the server exited with ${code} before it listened\n${errors}`)));
      }),
  );
}

export async function localCapacitySection(options: { quick: boolean }): Promise<LocalCapacityResult> {
  const n = Number(process.env.LOCAL_CAPACITY_INTERACTIONS || (options.quick ? 4_000 : 20_000));
  if (!Number.isInteger(n) || n < 100) throw new Error(`LOCAL_CAPACITY_INTERACTIONS must be an integer of at least 100, got ${process.env.LOCAL_CAPACITY_INTERACTIONS}`);
  const catalog = demoVideos(VIDEOS, Date.now());
  const vids = catalog.map((v) => v.vid);
  const world = capacityWorld(n, vids);

  const t0 = performance.now();
  const { child, url, dynamoEndpoint } = await startServer(VIDEOS);
  const startSeconds = Math.round((performance.now() - t0) / 100) / 10;
  const nodePid = child.pid!;
  const javaPid = childProcessOf(nodePid, 'java');
  let exited = false;
  child.once('exit', () => (exited = true));
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: dynamoEndpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));

  try {
    /** Every video's like_count, read straight from the server's DynamoDB Local (strongly consistent). */
    const likeCounts = async (): Promise<Map<string, number>> => {
      const counts = new Map<string, number>();
      for (let i = 0; i < vids.length; i += 100) {
        let keys: Record<string, unknown>[] | undefined = vids.slice(i, i + 100).map((vid) => videoKeys.video(vid));
        while (keys && keys.length > 0) {
          const out: BatchGetCommandOutput = await doc.send(new BatchGetCommand({ RequestItems: { [HUB_TABLE.id]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'vid, like_count' } } }));
          for (const item of out.Responses?.[HUB_TABLE.id] ?? []) counts.set(String(item.vid), Number(item.like_count ?? 0));
          keys = out.UnprocessedKeys?.[HUB_TABLE.id]?.Keys;
        }
      }
      return counts;
    };
    const initial = await likeCounts();
    const expected = new Map(initial);
    for (const c of world.calls) if (c.kind === 'like') expected.set(c.vids[0]!, (expected.get(c.vids[0]!) ?? 0) + 1);
    const initialSum = [...initial.values()].reduce((a, b) => a + b, 0);

    const statuses: Record<string, number> = {};
    let timeouts = 0;
    const call = async (params: Record<string, string>): Promise<{ status: number; body?: { data?: Record<string, unknown> } }> => {
      try {
        const res = await fetch(`${url}/api/v1?${new URLSearchParams(params)}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> } };
      } catch (error) {
        if ((error as Error).name === 'TimeoutError') timeouts++;
        else statuses.error = (statuses.error ?? 0) + 1;
        return { status: 0 };
      }
    };
    const pool = async <T>(items: T[], work: (item: T) => Promise<void>) => {
      let next = 0;
      await Promise.all(Array.from({ length: CLIENTS }, async () => {
        while (next < items.length) await work(items[next++]!);
      }));
    };

    // The users, through the real sign-up (gen_code, the local SMS outbox, create_phone_account).
    const tSignUp = performance.now();
    const accounts: { openid: string; token: string }[] = [];
    const base = 10_000_000 + Math.floor(Math.random() * 80_000_000);
    await pool(Array.from({ length: world.users }, (_, u) => u), async (u) => {
      const phone = `+86139${String(base + u).padStart(8, '0')}`;
      const nonce = `capacity-${u}-${base}`;
      for (let attempt = 0; attempt < 5 && !accounts[u]; attempt++) {
        if ((await call({ do: 'gen_code', phonenumber: phone, nonce })).status !== 200) continue;
        const sms = (await (await fetch(`${url}/_dev/sms?phone=${encodeURIComponent(phone)}`)).json()) as { data: { messages: { code: string }[] } };
        const made = await call({ do: 'create_phone_account', openid: phone, token: nonce, code: sms.data.messages[0]?.code ?? '', openid0: '', token0: '' });
        if (made.status === 200) accounts[u] = { openid: String(made.body!.data!.openid), token: String(made.body!.data!.token) };
      }
      if (!accounts[u]) throw new Error(`could not sign up user ${u}`);
    });
    const signUpSeconds = Math.round((performance.now() - tSignUp) / 100) / 10;
    for (const k of Object.keys(statuses)) delete statuses[k];

    // The load, sampled.
    let done = 0;
    let likesAnswered = 0;
    const points: CapacityPoint[] = [];
    let peakNodeMb = 0;
    let peakJavaMb = 0;
    let maxLagLikes = 0;
    const tLoad = performance.now();
    const step = n / 10;
    let nextPoint = 0;
    let sampling: Promise<void> = Promise.resolve();
    const sample = async (force = false) => {
      const nodeMb = residentMb(nodePid);
      const javaMb = residentMb(javaPid);
      peakNodeMb = Math.max(peakNodeMb, nodeMb);
      peakJavaMb = Math.max(peakJavaMb, javaMb);
      if (!force && done < nextPoint) return;
      const answered = likesAnswered;
      const counted = [...(await likeCounts()).values()].reduce((a, b) => a + b, 0) - initialSum;
      const lagLikes = Math.max(0, answered - counted);
      maxLagLikes = Math.max(maxLagLikes, lagLikes);
      points.push({ interactions: done, seconds: Math.round((performance.now() - tLoad) / 100) / 10, nodeMb, javaMb, nodeCpuS: cpuSeconds(nodePid), javaCpuS: cpuSeconds(javaPid), lagLikes });
      while (nextPoint <= done) nextPoint += step;
      const p = points.at(-1)!;
      console.log(`  ${p.interactions} interactions at ${p.seconds} s: node ${p.nodeMb} MB, JVM ${p.javaMb} MB, ${p.lagLikes} likes not yet counted`);
    };
    await sample(true);
    const timer = setInterval(() => (sampling = sampling.then(() => sample()).catch(() => undefined)), SAMPLE_MS);
    try {
      await pool(world.calls, async (c) => {
        const { openid, token } = accounts[c.user]!;
        const answer =
          c.kind === 'view'
            ? await call({ do: 'get_next_list', openid, token, watch_count: '1', view_list: c.vids.join(',') })
            : await call({ do: c.kind, openid, token, vid: c.vids[0]!, ...(c.kind === 'dislike' ? { action: 'dislike' } : {}) });
        if (c.kind === 'like' && answer.status === 200) likesAnswered++;
        done += c.vids.length;
      });
    } finally {
      clearInterval(timer);
    }
    const loadSeconds = Math.round((performance.now() - tLoad) / 100) / 10;
    await sampling;
    await sample(true);

    // Convergence: every video's like_count as expected (likes refused or timed out are not expected to count).
    const tConverge = performance.now();
    let convergenceMs = -1;
    let exact = false;
    const everyLikeAnswered = likesAnswered === world.mix.like;
    while (performance.now() - tConverge < CONVERGENCE_CAP_MS) {
      const counts = await likeCounts();
      const sum = [...counts.values()].reduce((a, b) => a + b, 0) - initialSum;
      exact = everyLikeAnswered ? vids.every((vid) => counts.get(vid) === expected.get(vid)) : sum >= likesAnswered;
      if (exact) {
        convergenceMs = Math.round(performance.now() - tConverge);
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const last = points.at(-1)!;
    const first = points[0]!;
    const javaMbPer10k = Math.round(((last.javaMb - first.javaMb) / Math.max(1, last.interactions - first.interactions)) * 10_000);
    const mbPer10k = Math.round(((last.nodeMb + last.javaMb - first.nodeMb - first.javaMb) / Math.max(1, last.interactions - first.interactions)) * 10_000);

    const stream = await tallyStream(dynamoEndpoint).catch((error: Error) => {
      console.error(`the stream could not be tallied: ${error.message}`);
      return { records: -1, imageMb: -1, byKind: [] };
    });

    // Stop: SIGTERM, then wait (generously) for the process and its JVM.
    const tStop = performance.now();
    child.kill('SIGTERM');
    while (!exited && performance.now() - tStop < 60_000) await new Promise((r) => setTimeout(r, 50));
    const stopMs = Math.round(performance.now() - tStop);
    const result: LocalCapacityResult = {
      interactions: n,
      users: world.users,
      videos: VIDEOS,
      clients: CLIENTS,
      calls: world.calls.length,
      mix: world.mix,
      startSeconds,
      signUpSeconds,
      loadSeconds,
      interactionsPerSecond: Math.round(n / loadSeconds),
      statuses,
      timeouts,
      points,
      peakNodeMb,
      peakJavaMb,
      javaMbPer10k,
      mbPer10k,
      maxLagLikes,
      convergenceMs,
      exact,
      stream,
      stopMs: exited ? stopMs : -1,
      javaLeft: isRunning(javaPid),
      exitCode: child.exitCode,
    };
    printLocalCapacity(result);
    return result;
  } finally {
    doc.destroy();
    if (!exited) child.kill('SIGKILL');
    if (isRunning(javaPid)) process.kill(javaPid!, 'SIGKILL');
  }
}

export function printLocalCapacity(r: LocalCapacityResult): void {
  printTable(
    `The hub table's stream at the end: ${r.stream.records} records, ${r.stream.imageMb} MB of images`,
    ['item kind (pk / sk)', 'records', 'images (MB)'],
    r.stream.byKind.map((k) => [k.kind, k.records, k.imageMb]),
  );
  printTable(
    `Local runtime capacity: ${r.interactions.toLocaleString('en')} interactions (${r.mix.like} likes, ${r.mix.dislike} dislikes, ${r.mix.view} views) of ${r.users} users on ${r.videos} videos, ${r.calls} calls by ${r.clients} clients`,
    ['interactions', 'at (s)', 'node RSS (MB)', 'DynamoDB Local RSS (MB)', 'node CPU (s)', 'JVM CPU (s)', 'likes not yet counted'],
    r.points.map((p) => [p.interactions, p.seconds, p.nodeMb, p.javaMb, p.nodeCpuS, p.javaCpuS, p.lagLikes]),
  );
  console.log(
    `start ${r.startSeconds} s, sign-up ${r.signUpSeconds} s, load ${r.loadSeconds} s (${r.interactionsPerSecond}/s); statuses ${JSON.stringify(r.statuses)}, timeouts ${r.timeouts}; ` +
      `peak node ${r.peakNodeMb} MB, JVM ${r.peakJavaMb} MB; per 10,000 interactions JVM +${r.javaMbPer10k} MB, node + JVM +${r.mbPer10k} MB; lag at most ${r.maxLagLikes} likes, ` +
      `exact ${r.convergenceMs} ms after the last answer (${r.exact ? 'exact' : 'NOT exact'}); SIGTERM to exit ${r.stopMs} ms (code ${r.exitCode}, JVM ${r.javaLeft ? 'LEFT RUNNING' : 'gone'})`,
  );
}

/**
 * The figures of a bench run as Markdown tables, from bench/results.json (or another results file):
 * `npx tsx bench/report.ts [results.json]` prints them, and `npm run bench:report` (bench/figures.ts)
 * writes them into docs/performance.md's "Figures", so that the document quotes a real run, not
 * hand-copied numbers. test/unit/performance-figures.test.ts fails when the two differ.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatTable, type Cell } from './format.js';
import type { ColdStartResult } from './sections/coldstart.js';
import type { CostResult } from './sections/cost.js';
import type { LatencyRow } from './sections/latency.js';
import type { LoadRow } from './sections/load.js';
import type { HotItemsResult } from './sections/hot-items.js';
import type { KeyLimitResult } from './sections/key-limit.js';
import type { DeletionResult } from './sections/deletion.js';
import type { ModelResult } from './sections/model.js';
import { trainingTables, type TrainingResult } from './training-tables.js';
import type { LocalCapacityResult } from './sections/local-capacity.js';
import type { HotspotsResult, HotspotRow, SharedHeadsModel } from './sections/hotspots.js';
import { postingsTable, type PostingsResult } from './sections/postings.js';
import type { ScalingResult, ScalingRow } from './sections/scaling.js';
import type { TargetCheck } from './targets.js';

/** The committed results of the last full run (sections merged from the runs that measured them). */
export const RESULTS_FILE = resolve(import.meta.dirname, 'results.json');

export interface BenchResults {
  meta: { date: string; machine: Record<string, unknown>; loadAverage?: { atStart: number[]; atEnd: number[] }; totalSeconds: number };
  sectionSeconds: Record<string, number>;
  cost?: CostResult;
  latency?: { warmup: number; iterations: number; rows: LatencyRow[] };
  load?: { rows: LoadRow[] };
  coldstart?: ColdStartResult;
  scaling?: ScalingResult;
  postings?: PostingsResult;
  hotitems?: HotItemsResult;
  keylimit?: KeyLimitResult;
  deletion?: DeletionResult;
  model?: ModelResult;
  training?: TrainingResult;
  hotspots?: HotspotsResult;
  'local-capacity'?: LocalCapacityResult;
  targets?: TargetCheck[];
}

export const readResults = (file = RESULTS_FILE): BenchResults => JSON.parse(readFileSync(resolve(file), 'utf8')) as BenchResults;

/** Every section present in `r`, as Markdown: a line on the run, then one table (### heading) per measurement. */
export function renderReport(r: BenchResults): string {
  const out: string[] = [];
  const table = (title: string, headers: string[], rows: Cell[][]) => out.push(`### ${title}\n\n${formatTable(headers, rows)}\n`);
  const kb = (b: number) => Math.round(b / 102.4) / 10;

  const m = r.meta.machine;
  out.push(
    `Run of ${r.meta.date}: ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGb} GB, Node ${m.node}, ${m.dynamodbLocal}, ${m.java}. ` +
      `Load average at start ${r.meta.loadAverage?.atStart.join(' ') ?? '?'}, at end ${r.meta.loadAverage?.atEnd.join(' ') ?? '?'}. ` +
      `Section times (s): ${Object.entries(r.sectionSeconds).map(([k, v]) => `${k} ${v}`).join(', ')}; total ${r.meta.totalSeconds} s.\n`,
  );
  if (r.targets) table('Targets', ['target', 'measured', 'status'], r.targets.map((t) => [t.target, t.measured, t.status]));
  if (r.cost) {
    table(
      `DynamoDB requests and capacity per call (usual call of ${r.cost.calls}; ! = a request whose condition failed, by design)`,
      ['operation', 'requests', 'authorizer', 'function', 'requests sent', 'RCU', 'WCU', 'no capacity reported', 'USD / 1M calls'],
      r.cost.rows.map((c) => [
        c.operation,
        c.error ? 'ERROR' : c.requestsMin === c.requestsMax ? c.requests : `${c.requests} (${c.requestsMin}-${c.requestsMax})`,
        c.authorizerRequests,
        c.functionRequests,
        c.error ?? c.commands,
        c.rcu,
        c.wcu,
        c.unreportedCapacity || '',
        c.usdPerMillionCalls,
      ]),
    );
  }
  if (r.latency) {
    table(
      `Warm in-process latency, ms (${r.latency.iterations} calls after ${r.latency.warmup} warm-up calls)`,
      ['operation', 'p50', 'p90', 'p99', 'max'],
      r.latency.rows.map((l) => [l.operation, l.error ? 'ERROR' : l.p50, l.p90, l.p99, l.max]),
    );
  }
  if (r.load) {
    table('Through the local server under autocannon', ['target', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors'], r.load.rows.map((l) => [l.target, l.connections, l.rps, l.p50, l.p99, l.non2xx, l.errors]));
  }
  if (r.coldstart) {
    const c = r.coldstart;
    const parts = (row: (typeof c.rows)[number]) =>
      row.composition
        .slice(0, 4)
        .map((p) => `${p.origin} ${Math.round(p.bytes / 1024)}`)
        .join(', ');
    table(
      `Cold-start proxy (bundle as deployed, AWS SDK bundled; import in a fresh Node ${c.nodeForImport} process with NODE_OPTIONS=${c.nodeOptions}, median of ${c.runs})`,
      ['function', 'bundle KB', 'gzip KB', 'import ms', 'import ms p90', 'import CPU ms', 'x reference', 'largest parts (KB)'],
      c.rows.map((row) => [row.function, kb(row.bytes), kb(row.gzipBytes), row.importMsMedian, row.importMsP90, row.importCpuMsMedian, row.ratioToReference ?? 'n/a', parts(row)]),
    );
    if (c.reference) {
      out.push(
        `The reference (${c.reference.entry}: one GetItem, the same SDK packages, bundled the same way): ${kb(c.reference.bytes)} KB, import ${c.reference.msMedian} ms median (p90 ${c.reference.msP90}, CPU ${c.reference.cpuMsMedian} ms), imported alternately with every function; "x reference" is a function's median over the reference's median of its own alternation.\n`,
      );
    }
    table(
      `AWS SDK bundled (deployed) against the runtime's SDK (\`@aws-sdk/*\` external, loaded from node_modules), median of ${c.runs} imports each`,
      ['function', 'bundled: KB', 'bundled: import ms', 'bundled: CPU ms', 'runtime SDK: KB', 'runtime SDK: import ms', 'runtime SDK: CPU ms'],
      c.rows.map((row) => [row.function, kb(row.bytes), row.importMsMedian, row.importCpuMsMedian, kb(row.runtimeSdk.bytes), row.runtimeSdk.msMedian, row.runtimeSdk.cpuMsMedian]),
    );
  }
  const scalingTable = (title: string, rows: ScalingRow[] | undefined) => {
    if (!rows) return;
    table(title, ['case', 'requests', 'RCU', 'WCU', 'p50 ms', 'p99 ms', 'requests sent'], rows.map((s) => [s.label, s.skipped ? 'n/a' : s.error ? 'ERROR' : s.requests, s.rcu, s.wcu, s.p50, s.p99, s.skipped ?? s.error ?? s.commands]));
  };
  if (r.scaling) {
    scalingTable('Scaling: verify by number of keys in the table', r.scaling.verifyKeys);
    scalingTable('Scaling: get_follower by offset', r.scaling.followerOffsets);
    scalingTable('Scaling: comment_get by page', r.scaling.commentPages);
    scalingTable('Scaling: get_next_list by catalog size and history', r.scaling.feed);
    if (r.scaling.seedSeconds) out.push(`Seeding times (s): ${Object.entries(r.scaling.seedSeconds).map(([k, v]) => `${k} ${v}`).join(', ')}.\n`);
  }
  if (r.postings) {
    const t = postingsTable(r.postings);
    table(t.title, t.headers, t.rows);
  }
  if (r.hotitems) {
    table('Hot items: concurrent calls on one video or one author', ['case', 'calls', 'answers', '503', 'exact once converged', 'converged after ms', 'wall ms', 'note'],
      r.hotitems.cases.map((c) => [c.name, c.calls, Object.entries(c.statuses).map(([k, v]) => `${k}: ${v}`).join(', '), c.unavailable, c.exact ? 'yes' : 'no', c.convergenceMs, c.wallMs, c.note]));
    out.push(`First like: ${r.hotitems.firstLike.requests} requests, ${r.hotitems.firstLike.wcu} WCU (${r.hotitems.firstLike.commands}).\n`);
  }
  if (r.keylimit) {
    table('Per-key rate limit: calls fired 50 at a time at one key within one minute', ['case', 'limit', 'calls', 'admitted', '429', 'other', 'exact', 'requests/call', 'WCU/call', 'refused writes', 'wall ms'],
      r.keylimit.cases.map((c) => [c.name, c.limit, c.calls, c.admitted, c.refused, c.other, c.exact ? 'yes' : 'no', c.requestsPerCall, c.wcuPerCall, c.refusedWrites, c.wallMs]));
    out.push(`Fixed window edge: limit ${r.keylimit.boundary.limit}/min, ${r.keylimit.boundary.admittedAcross} admitted within ${r.keylimit.boundary.withinMs / 1000} s across a minute boundary.\n`);
  }
  if (r.deletion) {
    table(
      'Account deletion by size: DELETE /api/v1/me, then the erasure (stream poller running) while others act',
      ['size', 'likes', 'follows / followers', 'comments', 'keys', 'DELETE /me requests', 'WCU', 'erased after ms', 'counts exact after ms more', 'requests in the window (R/W)', 'RCU', 'WCU', "others' calls (not 200)", 'exact', 'note'],
      r.deletion.rows.map((d) => [d.size, d.likes, `${d.follows} / ${d.followers}`, d.comments, d.keys, d.request.requests, d.request.wcu, d.erasedMs, d.convergedMs, `${d.erasure.requests} (${d.erasure.reads}/${d.erasure.writes})`, d.erasure.rcu, d.erasure.wcu, `${d.concurrent.calls} (${d.concurrent.failed})`, d.exact ? 'yes' : 'no', d.note]),
    );
  }
  if (r.model) {
    const refresh = (f: ModelResult['rows'][number]['scratch']) => [f.ms, f.model?.trainMs, f.cost.requests, f.cost.rcu, f.cost.wcu, f.written, f.deleted];
    table(
      "The feed's learned model: one refresh from scratch, again unchanged, and after 1 % more likes",
      ['world', 'videos in store', 'likes in store', 'views', 'people', 'model videos / entries', 'lists', 'list bytes', 'heap MB', 'scratch: ms', 'train ms', 'requests', 'RCU', 'WCU', 'written', 'deleted', 'unchanged: ms', 'train ms', 'requests', 'RCU', 'WCU', 'written', 'deleted', '+1 %: ms', 'train ms', 'requests', 'RCU', 'WCU', 'written', 'deleted'],
      r.model.rows.map((m) => [m.world, m.scratch.videos, m.scratch.likes, m.scratch.views, m.scratch.people, m.scratch.model ? `${m.scratch.model.videos} / ${m.scratch.model.entries}` : undefined, m.scratch.lists, m.listBytes, m.scratch.heapMb, ...refresh(m.scratch), ...refresh(m.unchanged), ...refresh(m.afterOnePercent)]),
    );
    out.push(`Request path: rec of a person whose ${r.model.request.lists} latest likes have lists: ${r.model.request.requests} requests, ${r.model.request.rcu} RCU, of which ${r.model.request.batchGetRcu} RCU for the BatchGet carrying the ${r.model.request.lists} lists.\n`);
  }
  if (r.training) for (const t of trainingTables(r.training)) table(t.title, t.headers, t.rows);
  const lc = r['local-capacity'];
  if (lc) {
    table(
      `Local runtime capacity: npm start (DATA_DIR=memory) loaded with ${lc.interactions} interactions (${lc.mix.like} likes, ${lc.mix.dislike} dislikes, ${lc.mix.view} views) of ${lc.users} users on ${lc.videos} videos, ${lc.clients} clients`,
      ['interactions', 'at (s)', 'node RSS (MB)', 'DynamoDB Local RSS (MB)', 'node CPU (s)', 'JVM CPU (s)', 'likes not yet counted'],
      lc.points.map((p) => [p.interactions, p.seconds, p.nodeMb, p.javaMb, p.nodeCpuS, p.javaCpuS, p.lagLikes]),
    );
    out.push(
      `Start ${lc.startSeconds} s (DynamoDB Local, tables, ${lc.videos} demo videos), sign-up ${lc.signUpSeconds} s, load ${lc.loadSeconds} s (${lc.interactionsPerSecond} interactions/s, ${lc.calls} calls). ` +
        `Answers ${Object.entries(lc.statuses).map(([k, v]) => `${k}: ${v}`).join(', ')}; timeouts ${lc.timeouts}. Peak RSS node ${lc.peakNodeMb} MB, DynamoDB Local ${lc.peakJavaMb} MB; ` +
        `per 10,000 interactions DynamoDB Local +${lc.javaMbPer10k} MB, both +${lc.mbPer10k} MB. Likes not yet counted at most ${lc.maxLagLikes}; every like count exact ${lc.convergenceMs} ms after the last answer (${lc.exact ? 'exact' : 'not exact'}). ` +
        `SIGTERM to exit ${lc.stopMs} ms (exit code ${lc.exitCode}, JVM ${lc.javaLeft ? 'left running' : 'gone'}).\n`,
    );
    table(
      `Local runtime capacity: the hub table's stream at the end (${lc.stream.records} records, ${lc.stream.imageMb} MB of images)`,
      ['item written (pk / sk prefix)', 'records', 'images (MB)'],
      lc.stream.byKind.map((k) => [k.kind, k.records, k.imageMb]),
    );
  }
  if (r.hotspots) {
    const h = r.hotspots;
    table('Hotspots: the traffic mix at 100x', ['operation', 'calls/s', 'sampled', 'requests/call', 'RCU/call', 'WCU/call', 'not as expected', 'what'],
      h.mix.map((m) => [m.operation, m.rate, m.sampled, m.requestsPerCall, m.rcuPerCall, m.wcuPerCall, m.failures, m.description]));
    const keys = (title: string, rows: HotspotRow[]) => table(title, ['key', 'WCU/s', 'RCU/s', 'requests/s'], rows.map((k) => [k.key, k.wcuPerSecond, k.rcuPerSecond, k.requestsPerSecond]));
    keys('Hotspots: busiest partition keys by writes', h.busiestWritePartitions);
    keys('Hotspots: busiest partition keys by reads', h.busiestReadPartitions);
    keys('Hotspots: busiest items by writes', h.busiestItems);
    const sp = h.streamProcessor;
    if (sp) {
      table('Hotspots: the stream processor as deployed (the sample\'s records in modelled batches)', ['batch size', 'window s', 'parallelization', 'stream shards at the mix', 'sampled shards', 'records', 'batches', 'transactions', 'WCU/s'],
        [[sp.batchSize, sp.windowSeconds, sp.parallelization, sp.streamShardsAtMix, sp.sampledShards, sp.factRecords, sp.batches, sp.transactions, sp.wcuPerSecond]]);
    }
    if (h.sharedHeads) sharedHeadsTables(table, h.sharedHeads);
    out.push(`Limits per partition: ${h.limits.wcu} WCU/s, ${h.limits.rcu} RCU/s: ${h.withinLimits ? 'within' : 'exceeded'}. ${h.note}.\n`);
  }
  return `${out.join('\n')}\n`;
}

/** The feed's shared heads in the hotspots model: the warm containers and each head's reads (bench/sections/hotspots.ts). */
function sharedHeadsTables(table: (title: string, header: string[], rows: Cell[][]) => unknown, s: SharedHeadsModel): void {
  table(`Hotspots: warm containers of the hub (Little's law): ${s.containers}`, ['operation', 'calls/s', 'timed calls', 'mean ms', 'containers'],
    s.durations.map((d) => [d.operation, d.rate, d.calls, d.meanMs, Math.round(d.rate * d.meanMs) / 1000]));
  table(`Hotspots: the feed's shared heads, each read at most once per ${s.ttlSeconds} s per container (within 3,000 RCU/s up to ${s.containersWithin} containers)`, ['head', 'asked/s', 'reads/s', 'RCU/read', 'RCU/s'],
    s.heads.map((h) => [h.key, h.askedPerSecond, h.readsPerSecond, h.rcuPerRead, h.rcuPerSecond]));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.stdout.write(renderReport(readResults(process.argv[2])));
}

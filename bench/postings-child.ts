/**
 * The postings section (run by sections/postings.ts in a process of its own, on fresh tables).
 *
 * A world where one gram really is common: VIDEOS videos (20,000; 2,000 with --quick) published in
 * one month through POST /api/v1/videos, the authorizer and the publish function invoked in process
 * as the other sections invoke them, by 10 editors, 8 publishes in flight. Texts are the demo
 * catalog's (bilingual titles and descriptions, 52-102 grams each) and every video carries the tag
 * 展会, so the gram 展会 has a posting per video; a bucket per gram and month would fail past
 * about 11,000 such videos (400 KB). Measured: that every publish succeeds, the requests of a publish
 * (samples at the start, the middle and the end, one at a time), the size of every posting item
 * (a Scan, fine in a benchmark) against the stated bound, and a `q` walk for 展会 to its end (every
 * video once, newest first, requests per call).
 */
import { writeFileSync } from 'node:fs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { POSTING_ITEM_MAX_BYTES, searchGrams, videoSearchText } from '../lib/entities/catalog/search-index.js';
import { clock } from '../lib/platform/clock.js';
import { inParallel } from '../lib/platform/db/batch.js';
import { db, tableNames } from '../lib/platform/db/client.js';
import { setAccountRoles } from '../lib/entities/accounts/accounts.js';
import { demoVideos } from '../local/demo-catalog.js';
import { printTable } from './format.js';
import { jwtFor, signUp, signUpMany } from './fixtures.js';
import { itemSizeBytes } from './item-size.js';
import { bearer, hubRequest, invoke } from './invoke.js';
import { costOf, installRecorder, recordDb, type DbRequest } from './recorder.js';
import { postingsTable, type PostingsResult, type PublishSample } from './sections/postings.js';
import { median, mode, round, summarize } from './stats.js';

const quick = process.env.BENCH_QUICK === '1';
const VIDEOS = Number(process.env.BENCH_POSTINGS_VIDEOS) || (quick ? 2_000 : 20_000);
const CONCURRENCY = 16;
const SAMPLE = 20;
const TERM = '展会';
/** Simulated time between publishes: 20,000 of them span 20 minutes of the month. */
const STEP_MS = 60;
const EDITORS = 10;

installRecorder();
// Every video in one month: the clock starts at the second day of this month and moves STEP_MS a publish.
const today = new Date();
clock.set(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 2));
const month = clock.nowIso().slice(0, 7);

const editors = await signUpMany(EDITORS);
for (const editor of editors) {
  await setAccountRoles(editor.openid, ['editor']);
  editor.token = await jwtFor(editor.openid, ['editor']);
}

const texts = demoVideos(VIDEOS, clock.now()).map((v, i) => ({
  title: v.title,
  description: v.description ?? '',
  // Unique URLs: the same text by the same editor is a new video, not a retry of the first.
  video_url: `https://cdn.expohub.example.com/bench/${i}.mp4`,
  cover_url: `https://cdn.expohub.example.com/bench/${i}.jpg`,
  duration_s: v.duration_s,
  tags: [...new Set([TERM, ...(v.tags ?? [])])],
}));
const grams = texts.map((t) => searchGrams(videoSearchText(t)).length).sort((a, b) => a - b);

const published: { vid: string; created_at: string }[] = [];
const failures: string[] = [];
let next = 0;
async function publishNext(): Promise<void> {
  const i = next++;
  const editor = editors[i % EDITORS]!;
  clock.advance(STEP_MS);
  const res = await invoke({ method: 'POST', path: '/api/v1/videos', headers: bearer(editor.token), body: texts[i] });
  const data = res.body.data as { created?: boolean; video?: { vid: string; created_at: string } } | undefined;
  if (res.status === 201 && data?.created && data.video) published.push({ vid: data.video.vid, created_at: data.video.created_at });
  else failures.push(`#${i}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
  const done = published.length + failures.length;
  if (done % 2000 === 0) console.log(`  ${done} of ${VIDEOS} publishes answered (${round((performance.now() - started) / 1000, 1)} s)`);
}

/** Every request the publishes sent (the authorizer's included). */
const sent: DbRequest[] = [];

/** SAMPLE publishes one after the other, each recorded on its own. */
async function sample(): Promise<PublishSample> {
  const first = next + 1;
  const runs: DbRequest[][] = [];
  for (let k = 0; k < SAMPLE; k++) runs.push((await recordDb(publishNext)).requests);
  sent.push(...runs.flat());
  const counts = runs.map((r) => r.length);
  const usual = runs.find((r) => r.length === mode(counts))!;
  return { label: `videos ${first}-${next}`, publishes: SAMPLE, requests: mode(counts), requestsMin: Math.min(...counts), requestsMax: Math.max(...counts), commands: costOf(usual).commands };
}

/** Publishes up to video `until` with CONCURRENCY in flight. */
async function bulk(until: number): Promise<void> {
  const { requests } = await recordDb(() => inParallel(Array.from({ length: Math.max(0, until - next) }), CONCURRENCY, publishNext));
  sent.push(...requests);
}

console.log(`  publishing ${VIDEOS} videos in ${month}, every one holding "${TERM}", ${CONCURRENCY} in flight`);
const started = performance.now();
const samples: PublishSample[] = [];
samples.push(await sample());
await bulk(Math.floor(VIDEOS / 2));
samples.push(await sample());
await bulk(VIDEOS - SAMPLE);
samples.push(await sample());
const publishSeconds = (performance.now() - started) / 1000;
const batchWrites = sent.filter((r) => r.command === 'BatchWriteItemCommand').length;

// Every posting item's size ----------------------------------------------------------------------------
const scanStarted = performance.now();
let postings = 0;
let termPostings = 0;
let totalBytes = 0;
let largest = { bytes: 0, key: '' };
let monthBucketBytes = Buffer.byteLength('pk') + Buffer.byteLength(`GRAM#${TERM}`) + Buffer.byteLength('sk') + month.length + Buffer.byteLength('e');
await inParallel([0, 1, 2, 3], 4, async (segment) => {
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(new ScanCommand({ TableName: tableNames.hub, Segment: segment, TotalSegments: 4, ExclusiveStartKey: start }));
    for (const item of out.Items ?? []) {
      const pk = String(item.pk);
      if (!pk.startsWith('GRAM#')) continue;
      const bytes = itemSizeBytes(item);
      postings++;
      totalBytes += bytes;
      if (bytes > largest.bytes) largest = { bytes, key: `${pk} | ${String(item.sk)}` };
      if (pk === `GRAM#${TERM}`) {
        termPostings++;
        monthBucketBytes += Buffer.byteLength(String(item.sk));
      }
    }
    start = out.LastEvaluatedKey;
  } while (start);
});
const scanSeconds = (performance.now() - scanStarted) / 1000;

// q for the common gram, followed to its end -------------------------------------------------------------
clock.reset();
const reader = await signUp();
const served: { vid: string; created_at: string }[] = [];
const perCall: DbRequest[][] = [];
const times: number[] = [];
const searchStarted = performance.now();
let cursor = '';
for (let call = 0; call < VIDEOS; call++) {
  const t0 = performance.now();
  const { result, requests } = await recordDb(() => invoke(hubRequest('get_next_list', { openid: reader.openid, token: reader.token, q: TERM, watch_count: 20, fav_index: cursor })));
  times.push(performance.now() - t0);
  if (result.status !== 200) throw new Error(`q call ${call}: ${result.status} ${JSON.stringify(result.body).slice(0, 200)}`);
  perCall.push(requests);
  const data = result.body.data as { list: { vid: string; created_at: string }[]; fav_index: string };
  served.push(...data.list.map((v) => ({ vid: v.vid, created_at: v.created_at })));
  cursor = data.fav_index;
  if (!cursor) break;
}
if (cursor) throw new Error('the q walk did not end');
const searchSeconds = (performance.now() - searchStarted) / 1000;
const servedVids = served.map((v) => v.vid);
const exactlyOnce = new Set(servedVids).size === servedVids.length && servedVids.length === published.length && published.every((p) => servedVids.includes(p.vid));
const newestFirst = served.every((v, i) => i === 0 || `${served[i - 1]!.created_at}#${served[i - 1]!.vid}` > `${v.created_at}#${v.vid}`);
const callCounts = perCall.map((r) => r.length);
const usualCall = perCall.find((r) => r.length === mode(callCounts))!;
const timing = summarize(times);

const result: PostingsResult = {
  videos: VIDEOS,
  concurrency: CONCURRENCY,
  month,
  term: TERM,
  publish: {
    seconds: round(publishSeconds, 1),
    perSecond: round(VIDEOS / publishSeconds, 1),
    failures: failures.length,
    failureExamples: failures.slice(0, 5),
    requestsTotal: sent.length,
    requestsPerPublishMean: round(sent.length / VIDEOS, 2),
    gramsPerVideo: { min: grams[0]!, median: median(grams), max: grams.at(-1)! },
    batchWrites,
    samples,
  },
  items: {
    postings,
    boundBytes: POSTING_ITEM_MAX_BYTES,
    largestBytes: largest.bytes,
    largestKey: largest.key,
    meanBytes: round(totalBytes / Math.max(1, postings), 1),
    termPostings,
    monthBucketBytes,
    scanSeconds: round(scanSeconds, 1),
  },
  search: {
    calls: perCall.length,
    served: served.length,
    exactlyOnce,
    newestFirst,
    requestsPerCallMode: mode(callCounts),
    requestsPerCallMax: Math.max(...callCounts),
    commands: costOf(usualCall).commands,
    rcuPerCallMean: round(perCall.reduce((s, r) => s + costOf(r).rcu, 0) / perCall.length, 1),
    p50: round(timing.p50),
    p99: round(timing.p99),
    seconds: round(searchSeconds, 1),
  },
};

const table = postingsTable(result);
printTable(table.title, table.headers, table.rows);
if (failures.length) console.log(`failed publishes (first 5):\n${failures.slice(0, 5).join('\n')}`);

writeFileSync(process.env.BENCH_RESULT_FILE!, JSON.stringify(result));
process.exit(0);

import { runSectionChild } from '../child.js';
import type { Cell } from '../format.js';

export interface PublishSample {
  /** Where in the run the sample was taken, e.g. "videos 1-20". */
  label: string;
  publishes: number;
  requests: number;
  requestsMin: number;
  requestsMax: number;
  /** The request sequence of the usual publish of the sample. */
  commands: string;
}

export interface PostingsResult {
  videos: number;
  concurrency: number;
  /** The month every video was created in (YYYY-MM). */
  month: string;
  term: string;
  publish: {
    seconds: number;
    perSecond: number;
    /** Publishes that did not answer 201 with a new video. */
    failures: number;
    failureExamples: string[];
    requestsTotal: number;
    requestsPerPublishMean: number;
    /** Search grams per video (= postings written per publish): min, median, max. */
    gramsPerVideo: { min: number; median: number; max: number };
    /** BatchWrite requests sent after a transaction: the postings of texts too long for it. */
    batchWrites: number;
    samples: PublishSample[];
  };
  items: {
    postings: number;
    /** The stated bound (POSTING_ITEM_MAX_BYTES). */
    boundBytes: number;
    largestBytes: number;
    largestKey: string;
    meanBytes: number;
    /** Postings of the common gram (one per video holding it). */
    termPostings: number;
    /** What a bucket per gram and month (the layout posting items replaced) would weigh for the common gram (its limit: 400 KB). */
    monthBucketBytes: number;
    scanSeconds: number;
  };
  search: {
    calls: number;
    served: number;
    /** Every video served exactly once, newest first. */
    exactlyOnce: boolean;
    newestFirst: boolean;
    requestsPerCallMode: number;
    requestsPerCallMax: number;
    commands: string;
    rcuPerCallMean: number;
    p50: number;
    p99: number;
    seconds: number;
  };
}

/**
 * Search postings at scale: 20,000 videos published in one month through POST /api/v1/videos (the
 * authorizer and the publish function, in process), every one holding one common gram; then the size
 * of every posting item and a `q` walk over all of them. In a child process on tables of its own
 * (bench/postings-child.ts), like the scaling section.
 */
export function postingsSection(options: { quick: boolean; settings: Record<string, string> }): Promise<PostingsResult> {
  return runSectionChild<PostingsResult>('bench/postings-child.ts', 'postings_', options);
}

/** The section's figures as one table (printed by the child, rendered by bench/report.ts). */
export function postingsTable(r: PostingsResult): { title: string; headers: string[]; rows: Cell[][] } {
  const p = r.publish;
  const s = r.search;
  return {
    title: `Search postings: ${r.videos} videos published in ${r.month}, every one holding "${r.term}"`,
    headers: ['figure', 'value'],
    rows: [
      ['publishes: wall time (s), per second', `${p.seconds}, ${p.perSecond} (${r.concurrency} in flight)`],
      ['publishes that failed', p.failures],
      ['requests per publish: mean over all', p.requestsPerPublishMean],
      ...p.samples.map((x): Cell[] => [`requests per publish, ${x.label} (one at a time)`, `${x.requests} (${x.requestsMin}-${x.requestsMax}): ${x.commands}`]),
      ['grams (postings) per video: min, median, max', `${p.gramsPerVideo.min}, ${p.gramsPerVideo.median}, ${p.gramsPerVideo.max}`],
      ['BatchWrites after a transaction (postings that did not fit), in all', p.batchWrites],
      ['posting items; mean bytes', `${r.items.postings}; ${r.items.meanBytes}`],
      ['largest posting item, bytes (bound)', `${r.items.largestBytes} (${r.items.boundBytes}): ${r.items.largestKey}`],
      [`postings of "${r.term}"; its month bucket of earlier code would weigh (limit 409,600)`, `${r.items.termPostings}; ${r.items.monthBucketBytes} bytes`],
      [`q=${r.term} followed to its end: calls, videos served`, `${s.calls}, ${s.served} (each once: ${s.exactlyOnce}, newest first: ${s.newestFirst}), ${s.seconds} s`],
      ['q requests per call: usual, max', `${s.requestsPerCallMode}, ${s.requestsPerCallMax}: ${s.commands}`],
      ['q per call: RCU mean, p50 ms, p99 ms', `${s.rcuPerCallMean}, ${s.p50}, ${s.p99}`],
    ],
  };
}

import { formatTable, type Cell } from '../format.js';
import { ratiosTo, type SystemMetrics } from './metrics.js';
import { meanOverWorlds, type EvalResult, type SystemKey, type WorldResult } from './targets.js';

/** Where a full run writes its tables, whole (what they measure: docs/feed.md, "Offline evaluation"). */
export const FEED_EVAL_REPORT = 'docs/reports/feed-eval.md';

/** Earlier generations of the feed whose saved figures (bench/feed-eval-<gen>.json) a run shows beside its own, newest first. */
export const GENERATIONS: [string, string][] = [
  ['gen2', 'second-generation feed'],
  ['gen1', 'first-generation feed'],
];

const r2 = (x: number) => (Number.isFinite(x) ? Math.round(x * 100) / 100 : x);

const SYSTEMS: [SystemKey, string][] = [
  ['popularity', 'popularity (`order=hot`)'],
  ['newest', 'newest (`order=new`)'],
  ['popularityLocal', 'most liked among unseen (local)'],
  ['itemKnn', 'item-kNN, cosine over co-likes, at most 2 per author (local)'],
  ['random', 'random (mean of 200 draws)'],
  ['oracle', 'oracle: most-liked in the planted topics'],
  ['oracleCapped', 'oracle, at most 2 per author'],
];

/** Earlier generations' figures, shown beside the current feed's (bench/feed-eval-gen1.json, bench/feed-eval-gen2.json). */
export interface Generation {
  label: string;
  name: string;
  result: EvalResult;
}

const HEADERS = ['system', 'HR@10', 'Recall@10', 'NDCG@10', 'topic prec.@10', 'coverage', 'disliked', 'liked', 'max/author', 'HR / capped oracle', 'NDCG / capped oracle', 'prec. / capped oracle'];

function systemRow(label: string, m: SystemMetrics, capped: SystemMetrics): Cell[] {
  const q = ratiosTo(m, capped);
  return [label, r2(m.hr), r2(m.recall), r2(m.ndcg), r2(m.topicPrecision), r2(m.coverage), r2(m.dislikedReturned), r2(m.likedReturned), r2(m.maxPerAuthor), r2(q.hr), r2(q.ndcg), r2(q.topicPrecision)];
}

function systemTable(feedLabel: string, systems: Partial<Record<SystemKey, SystemMetrics>>, generations: { name: string; feed: SystemMetrics }[]): Cell[][] {
  const capped = systems.oracleCapped!;
  const rows: Cell[][] = [systemRow(feedLabel, systems.feed!, capped), ...generations.map((g) => systemRow(g.name, g.feed, capped))];
  for (const [key, label] of SYSTEMS) if (systems[key]) rows.push(systemRow(label, systems[key], capped));
  return rows;
}

function describe(w: WorldResult): string {
  const s = w.spec;
  const parts = [
    `${s.videos} videos`,
    `${s.topics} topics${s.tagging === 'genres' ? ' in no tag (videos carry broad genre tags)' : ''}`,
    `${s.authors} authors${s.authorHomeTopics === 1 ? ' of one topic each' : ''}`,
    `${s.users} users + ${s.crowd} background accounts`,
    `"expo" on ${Math.round(Number(w.stats.dominantTagShare) * 100)} % of videos`,
    s.popularity === 'skewed' ? `one topic ${s.skew}x as popular` : 'uniform topic popularity',
  ];
  if (s.quality === 'zipf') parts.push(`Zipf-like quality within topics (exponent ${s.zipfExponent ?? 1})`);
  const userLikes = w.stats.userLikes as { max: number; mean: number } | undefined;
  if (s.likeCounts && userLikes) parts.push(`users' likes ${s.likeCounts.user.min}-${s.likeCounts.user.max}, mean ${Math.round(userLikes.mean)}`);
  return `#### World "${w.name}" (seed ${s.seed}): ${parts.join(', ')}`;
}

const spread = (x?: { max: number; mean: number }) => (x ? `${r2(x.max)} / ${r2(x.mean)}` : '');
/** A model refresh: what `refreshRecommendationModel()` returned, then its time, requests and capacity. */
function refreshCell(x?: Record<string, unknown>): string {
  if (!x) return '';
  const { returned, seconds, requests, rcu, wcu } = x as { returned?: Record<string, unknown>; seconds: number; requests: number; rcu: number; wcu: number };
  const fields = Object.entries(returned ?? {}).map(([k, v]) => `${k} ${typeof v === 'number' ? r2(v) : JSON.stringify(v)}`);
  return `${fields.join(', ')}; ${r2(seconds)} s, ${requests} requests, ${r2(rcu)} RCU, ${r2(wcu)} WCU`;
}

export function renderMarkdown(result: EvalResult, earlier: Generation[] = []): string {
  const parts: string[] = [];
  const label = result.meta.label ? ` (${result.meta.label})` : '';
  const feedLabel = `personalised feed (\`rec\`)${label}`;
  parts.push(
    `Run${label} of ${result.meta.date.slice(0, 10)} on commit ${result.meta.commit ?? '?'}${result.meta.quick ? ' (quick)' : ''}, ${result.meta.seconds} s` +
      (result.meta.rescored ? ` (scored again by commit ${result.meta.rescored.commit})` : '') +
      earlier.map((g) => `; ${g.name}: commit ${g.result.meta.commit ?? '?'}`).join('') +
      '. First page (`watch_count=10`, after `cmd=refresh`), averaged over the world\'s users; ratios are to the oracle with at most 2 per author.',
  );
  const columns = ['measure', `feed${label}`, ...earlier.map((g) => g.name)];
  for (const w of result.worlds) {
    parts.push(describe(w));
    const gens = earlier.flatMap((g) => g.result.worlds.filter((x) => x.name === w.name).map((x) => ({ name: g.name, world: x })));
    const rows = systemTable(feedLabel, w.systems, gens.map((g) => ({ name: g.name, feed: g.world.systems.feed })));
    rows.push(['random, analytic expectation', r2(w.randomExpected.hr), r2(w.randomExpected.recall), r2(w.randomExpected.ndcg), r2(w.randomExpected.topicPrecision)]);
    parts.push(formatTable(HEADERS, rows));
    const byGeneration = (f: (x: WorldResult) => Cell) => earlier.map((g) => {
      const x = g.result.worlds.find((y) => y.name === w.name);
      return x ? f(x) : '';
    });
    const line = (measure: string, f: (x: WorldResult) => Cell): Cell[] => [measure, f(w), ...byGeneration(f)];
    parts.push(
      formatTable(columns, [
        line("follow freshness (a followed author's new video in the next 10)", (x) => `${r2(x.followFreshness.rate)} (${x.followFreshness.hits}/${x.followFreshness.pairs})`),
        line('"more like this": topic precision@10', (x) => r2(x.moreLikeThis.topicPrecision)),
        line('"more like this": oracle (most-liked of the topic, at most 2 per author)', (x) => r2(x.moreLikeThis.oracleCapped ?? Number.NaN)),
        line('DynamoDB requests per rec call: max / mean', (x) => spread(x.requests)),
        line('write units per rec call: max / mean', (x) => spread(x.wcu)),
        line('every mode (rec, hot, new, more like this): requests, write units max / mean', (x) => (x.allModes ? `${spread(x.allModes.requests)}; ${spread(x.allModes.wcu)}` : '')),
        line('model refresh after the world was built', (x) => refreshCell(x.model?.afterBuild)),
        line('model refresh after the follow-freshness publishes', (x) => refreshCell(x.model?.afterFreshness)),
      ]),
    );
  }
  if (result.worlds.length > 1) {
    const m = meanOverWorlds(result.worlds);
    parts.push(`#### Mean over the ${result.worlds.length} worlds`);
    // An earlier generation's mean is comparable only over the same worlds.
    const same = earlier.filter((g) => result.worlds.every((w) => g.result.worlds.some((x) => x.name === w.name)));
    parts.push(formatTable(HEADERS, systemTable(feedLabel, m.systems, same.map((g) => ({ name: g.name, feed: meanOverWorlds(g.result.worlds.filter((x) => result.worlds.some((w) => w.name === x.name))).systems.feed! })))));
    const missing = earlier.filter((g) => !same.includes(g));
    parts.push(
      `Follow freshness ${r2(m.followFreshness)}, "more like this" topic precision ${r2(m.moreLikeThis)}, requests per rec call max ${m.requests.max}, write units max ${r2(m.wcu.max)}.` +
        missing.map((g) => ` The ${g.name} was measured on ${g.result.worlds.map((x) => `"${x.name}"`).join(', ')} only: not in this mean.`).join(''),
    );
  }
  const c = result.controlled;
  parts.push('#### Controlled case: 10 topics x 10 videos tagged `[topic, "expo"]`, a new user likes 4 videos of one topic');
  parts.push(
    formatTable(
      [...columns, 'chance'],
      [
        ['videos of that topic in the next 10: fewest / mean over the 10 topics', `${c.min} / ${r2(c.mean)}`, ...earlier.map((g) => `${g.result.controlled.min} / ${r2(g.result.controlled.mean)}`), r2(c.chance)],
        ['follow freshness', r2(c.followFreshness), ...earlier.map((g) => r2(g.result.controlled.followFreshness)), ''],
        ['model refresh before the first question', refreshCell(c.model?.first), ...earlier.map((g) => refreshCell(g.result.controlled.model?.first)), ''],
      ],
    ),
  );
  parts.push('#### Targets');
  parts.push(formatTable(['target', 'world', 'value', 'goal', 'met'], result.targets.map((t) => [t.name, t.world, r2(t.value), t.goal, t.met ? 'yes' : '**no**'])));
  parts.push(
    `Metric check: the random baseline measured over 200 draws per user against its analytic expectation (HR = 1 - C(n-h,10)/C(n,10), precision = on-topic share of the eligible videos), tolerance ${result.randomCheck.tolerance}: ${result.randomCheck.ok ? 'all within' : '**outside**'} (${result.randomCheck.rows.map((r) => `${r.world} ${r.metric} ${r2(r.measured)} vs ${r2(r.expected)}`).join('; ')}).`,
  );
  return parts.join('\n\n');
}

/** docs/reports/feed-eval.md, whole: the tables of `renderMarkdown` under a title. */
export function renderReportPage(markdown: string): string {
  return [
    '# Feed evaluation',
    '',
    '<!-- generated by npm run eval:feed (bench/feed-eval/run.ts) from bench/feed-eval.json; do not edit by hand -->',
    '',
    'The figures of the offline evaluation, as measured; the worlds, baselines and targets: [the feed guide](../feed.md#offline-evaluation-npm-run-evalfeed).',
    '',
    markdown.trimEnd(),
    '',
  ].join('\n');
}

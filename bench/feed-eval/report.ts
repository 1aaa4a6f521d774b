import { formatTable, type Cell } from '../format.js';
import { ratio, ratiosTo, type SystemMetrics } from './metrics.js';
import { bestBaseline, meanOverWorlds, type EvalResult, type SystemKey, type TunedSummary, type WorldResult } from './targets.js';

/** Where a full run writes its tables, whole (what they measure: docs/feed.md, "Offline evaluation"). */
export const FEED_EVAL_REPORT = 'docs/reports/feed-eval.md';

/** Earlier generations of the feed whose saved figures (bench/feed-eval-<gen>.json) a run shows beside its own, newest first. */
export const GENERATIONS: [string, string][] = [
  ['gen3', 'third-generation feed'],
  ['gen2', 'second-generation feed'],
  ['gen1', 'first-generation feed'],
];

const r2 = (x: number) => (Number.isFinite(x) ? Math.round(x * 100) / 100 : x);

const SYSTEMS: [SystemKey, string][] = [
  ['popularity', 'popularity (`order=hot`)'],
  ['newest', 'newest (`order=new`)'],
  ['popularityLocal', 'most liked among unseen (local)'],
  ['itemKnn', 'item-kNN, cosine over co-likes (local)'],
  ['ease', 'EASE, likes and views (local)'],
  ['als', 'implicit ALS, likes and views (local)'],
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

const HEADERS = ['system', 'HR@10', 'Recall@10', 'NDCG@10', 'topic prec.@10', 'coverage', 'disliked', 'liked', 'max/author', 'HR / best baseline', 'NDCG / best baseline', 'HR / capped oracle', 'prec. / capped oracle'];

/** What a row's ratios divide by: the best local baseline's HR@10 and NDCG@10, and the capped oracle where topics are planted. */
interface References {
  hr?: number;
  ndcg?: number;
  capped?: SystemMetrics;
}

const over = (value: number, reference?: number) => (reference === undefined ? undefined : r2(ratio(value, reference)));

function systemRow(label: string, m: SystemMetrics, ref: References): Cell[] {
  const q = ref.capped ? ratiosTo(m, ref.capped) : undefined;
  return [label, r2(m.hr), r2(m.recall), r2(m.ndcg), r2(m.topicPrecision), r2(m.coverage), r2(m.dislikedReturned), r2(m.likedReturned), r2(m.maxPerAuthor), over(m.hr, ref.hr), over(m.ndcg, ref.ndcg), q && r2(q.hr), q && r2(q.topicPrecision)];
}

function systemTable(feedLabel: string, systems: Partial<Record<SystemKey, SystemMetrics>>, generations: { name: string; feed: SystemMetrics }[]): Cell[][] {
  const ref: References = { hr: bestBaseline(systems, 'hr')?.value, ndcg: bestBaseline(systems, 'ndcg')?.value, capped: systems.oracleCapped };
  const rows: Cell[][] = [systemRow(feedLabel, systems.feed!, ref), ...generations.map((g) => systemRow(g.name, g.feed, ref))];
  for (const [key, label] of SYSTEMS) if (systems[key]) rows.push(systemRow(label, systems[key], ref));
  return rows;
}

const paramsText = (p: Record<string, number>) => Object.entries(p).filter(([k]) => k !== 'seed').map(([k, v]) => `${k} ${v}`).join(', ');
const tunedText = (name: string, t: TunedSummary) => `${name}: ${paramsText(t.params)} (best of ${t.configurations} on the validation split: HR@10 ${r2(t.validation.hr)}, NDCG@10 ${r2(t.validation.ndcg)}; ${t.seconds} s)`;

function describe(w: WorldResult): string {
  const s = w.spec;
  const stats = w.stats as { dominantTagShare?: number; userLikes?: { max: number; mean: number }; people?: number; eventCount?: number; buildSeconds?: number; topTenthLikeShare?: number; likesPerPerson?: Record<string, number>; viewsPerPerson?: number; dislikesPerPerson?: number };
  const parts: string[] = [];
  if (s.generator === 'latent') {
    parts.push(`${s.users} people, every one evaluated on their last like in time`, `${s.videos} videos`, `${s.topics} latent taste groups in no tag (videos carry broad genre tags)`, `${s.authors} authors`);
  } else {
    parts.push(
      `${s.videos} videos`,
      `${s.topics} topics${s.tagging === 'genres' ? ' in no tag (videos carry broad genre tags)' : ''}`,
      `${s.authors} authors${s.authorHomeTopics === 1 ? ' of one topic each' : ''}`,
      `${s.users} users + ${s.crowd} background accounts`,
      `"expo" on ${Math.round(Number(stats.dominantTagShare) * 100)} % of videos`,
      s.popularity === 'skewed' ? `one topic ${s.skew}x as popular` : 'uniform topic popularity',
    );
    if (s.quality === 'zipf') parts.push(`Zipf-like quality within topics (exponent ${s.zipfExponent ?? 1})`);
    if (s.likeCounts && stats.userLikes) parts.push(`users' likes ${s.likeCounts.user.min}-${s.likeCounts.user.max}, mean ${Math.round(stats.userLikes.mean)}`);
  }
  if (s.thin) parts.push('thin data');
  if (stats.likesPerPerson) {
    const l = stats.likesPerPerson;
    parts.push(`likes per person ${l.min} / ${l.p10} / ${l.median} / ${l.p90} / ${l.max} (min / 10 % / median / 90 % / max)`, `the top 10 % of videos hold ${Math.round(100 * Number(stats.topTenthLikeShare))} % of likes`, `${r2(Number(stats.viewsPerPerson))} views and ${r2(Number(stats.dislikesPerPerson))} dislikes per person`);
  }
  if (stats.eventCount !== undefined) parts.push(`${stats.eventCount} events, built in ${stats.buildSeconds} s`);
  return `#### World "${w.name}" (${s.kind ? `kind "${s.kind}", ` : ''}seed ${s.seed}): ${parts.join(', ')}`;
}

/** Which seeds the run used, and that the report's are not the tuning ones. */
function seedsLine(meta: EvalResult['meta']): string | undefined {
  if (!meta.seeds) return undefined;
  const list = (pick: 'report' | 'tune') => meta.seeds!.map((k) => `${k.kind} ${k[pick].join(', ')}`).join('; ');
  switch (meta.seedSet) {
    case 'report':
      return `Worlds from the REPORT seeds (${list('report')}), disjoint from the seeds the feed was tuned on (${list('tune')}): bench/feed-eval/worlds.ts, \`WORLD_KINDS\`.`;
    case 'tune':
      return `Worlds from the TUNING seeds (${list('tune')}): figures to develop on, not to report.`;
    case 'custom':
      return 'Worlds from seeds given with `--seeds`.';
    default:
      return undefined;
  }
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
      earlier.filter((g) => g.result.worlds.some((x) => result.worlds.some((w) => w.name === x.name))).map((g) => `; ${g.name}: commit ${g.result.meta.commit ?? '?'}`).join('') +
      '. First page (`watch_count=10`, after `cmd=refresh`), averaged over the world\'s evaluated people; ratios are to the best local baseline of the world (per metric) and, where topics are planted, to the oracle with at most 2 per author. Every local baseline obeys the feed\'s page rules (nothing liked, disliked or viewed; at most 2 per author). An earlier generation shows only on the worlds it was measured on.',
  );
  const seeds = seedsLine(result.meta);
  if (seeds) parts.push(seeds);
  const columns = ['measure', `feed${label}`, ...earlier.map((g) => g.name)];
  for (const w of result.worlds) {
    parts.push(describe(w));
    if (w.tuning) parts.push(`Local baselines' hyperparameters, chosen on the training data only (each evaluated person's last training like as validation): ${tunedText('EASE', w.tuning.ease)}; ${tunedText('ALS', w.tuning.als)}.`);
    const gens = earlier.flatMap((g) => g.result.worlds.filter((x) => x.name === w.name).map((x) => ({ name: g.name, world: x })));
    const rows = systemTable(feedLabel, w.systems, gens.map((g) => ({ name: g.name, feed: g.world.systems.feed })));
    rows.push(['random, analytic expectation', r2(w.randomExpected.hr), r2(w.randomExpected.recall), r2(w.randomExpected.ndcg), r2(w.randomExpected.topicPrecision)]);
    parts.push(formatTable(HEADERS, rows));
    const line = (measure: string, f: (x: WorldResult) => Cell): Cell[] => [measure, f(w), ...gens.map((g) => f(g.world))];
    parts.push(
      formatTable(['measure', `feed${label}`, ...gens.map((g) => g.name)], [
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
    parts.push(`#### Mean over the ${result.worlds.length} worlds (the oracles' columns only where every world has planted topics)`);
    // An earlier generation's mean is comparable only over the same worlds.
    const same = earlier.filter((g) => result.worlds.every((w) => g.result.worlds.some((x) => x.name === w.name)));
    parts.push(formatTable(HEADERS, systemTable(feedLabel, m.systems, same.map((g) => ({ name: g.name, feed: meanOverWorlds(g.result.worlds.filter((x) => result.worlds.some((w) => w.name === x.name))).systems.feed! })))));
    const missing = earlier.filter((g) => !same.includes(g) && g.result.worlds.some((x) => result.worlds.some((w) => w.name === x.name)));
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
  parts.push(formatTable(['target', 'world', 'value', 'goal', 'met'], result.targets.map((t) => [t.reference ? `${t.name} (${t.reference})` : t.name, t.world, r2(t.value), t.goal, t.met ? 'yes' : '**no**'])));
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

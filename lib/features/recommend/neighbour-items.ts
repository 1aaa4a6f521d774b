import { videoKeys } from '../../entities/catalog/video-items.js';
import type { CandidateFields } from './sources.js';

/**
 * A video's neighbour list as stored (docs/data-model.md, "Access patterns"): `VIDEO#vid/NEIGHBOURS`,
 * written by the model's refresh only (lib/features/recommend/model-refresh.ts), read by get_next_list
 * (the lists of the caller's latest likes and views, with the followed accounts' lists; "more like
 * this": the video's). Each entry is a list `[vid, weight, author, created (epoch s), trend, ...tags]`:
 * what ranking needs, so an entry is a candidate without reading its video. About 4-5 KB for 50
 * entries (one or two read units, eventually consistent).
 */
export type NeighbourEntry = CandidateFields & { sim: number };

const stored = (e: NeighbourEntry): unknown[] => [e.vid, Number(e.sim.toPrecision(4)), e.author_openid, Math.floor(Date.parse(e.created_at) / 1000), Number(e.trend.toPrecision(4)), ...e.tags];

/**
 * What decides whether a list changed: its vids in order and their weights in steps of 5 % of its
 * strongest (a refresh rewrites only changed lists; a few more actions move most weights a little,
 * and rarely a list's members or order).
 */
export const neighbourSignature = (list: NeighbourEntry[]) => {
  const top = Math.max(0, ...list.map((e) => e.sim));
  return list.map((e) => `${e.vid}:${top > 0 ? Math.round((e.sim / top) * 20) : 0}`).join(',');
};

export const neighbourItem = (vid: string, list: NeighbourEntry[], builtAt: string) => ({
  ...videoKeys.neighbours(vid),
  entity: 'neighbours',
  vid,
  nb: list.map(stored),
  sig: neighbourSignature(list),
  built_at: builtAt,
});

/** The neighbours of a stored list as candidates, with their similarity. */
export function neighbourCandidates(item: Record<string, unknown> | undefined): NeighbourEntry[] {
  const list = Array.isArray(item?.nb) ? (item.nb as unknown[]) : [];
  return list.flatMap((v) => {
    if (!Array.isArray(v)) return [];
    const [vid, sim, author, created, trend, ...tags] = v as unknown[];
    if (typeof vid !== 'string' || typeof sim !== 'number' || typeof author !== 'string' || typeof created !== 'number') return [];
    return [{ vid, sim, author_openid: author, created_at: new Date(created * 1000).toISOString(), trend: typeof trend === 'number' ? trend : 0, tags: tags.filter((t): t is string => typeof t === 'string') }];
  });
}

import { importVideos } from '../lib/entities/catalog/import.js';
import type { ImportedVideo } from '../lib/entities/catalog/video-items.js';

const TOPICS = ['展会', '工业', '机器人', 'AI', '新能源', '汽车', '医疗', '农业', 'expo', 'robotics', 'energy', 'logistics'];
const WORDS = ['智能', '制造', '现场', '发布', '趋势', '技术', '方案', 'booth', 'demo', 'launch', 'review', 'tour'];

/**
 * Catalog videos as the demo catalog and publishers create them, through the video store's own bulk
 * import (the same items putVideo writes). `index` picks deterministic text and tags; creation
 * times spread over the last `spreadDays` days.
 */
export function catalogVideo(index: number, author: string, nowMs: number, spreadDays = 720, prefix = 'bv'): ImportedVideo {
  const topic = TOPICS[index % TOPICS.length]!;
  const word = WORDS[(index * 7) % WORDS.length]!;
  return {
    vid: `${prefix}${index.toString(36).padStart(6, '0')}`,
    author_openid: author,
    title: `${topic}${word} ${index}`,
    description: `Bench video ${index}: ${topic} ${word}`,
    cover_url: `https://cdn.example.com/cover/${index}.jpg`,
    video_url: `https://cdn.example.com/video/${index}.mp4`,
    duration_s: 30 + (index % 600),
    tags: [topic, WORDS[index % WORDS.length]!],
    created_at: new Date(nowMs - ((index * 7919) % (spreadDays * 86_400)) * 1000).toISOString(),
    like_count: (index * 31) % 500,
  };
}

const CJK_TOPICS = ['展会', '工业', '机器', '智能', '能源', '汽车', '医疗', '农业', '物流', '材料', '芯片', '建筑'];
const CJK_WORDS = ['现场', '发布', '趋势', '技术', '方案', '参观', '论坛', '新品', '评测', '访谈', '直播', '峰会'];

/**
 * A video for the big scaling catalogs: a short Chinese title from a small vocabulary, one tag, no
 * description, created within the last 90 days. Same item shapes as any video (importVideos), but
 * few distinct search grams and posting months, so that 100k videos seed in minutes on DynamoDB Local.
 */
export function leanCatalogVideo(index: number, author: string, nowMs: number, prefix = 'lv'): ImportedVideo {
  const topic = CJK_TOPICS[index % CJK_TOPICS.length]!;
  const word = CJK_WORDS[Math.floor(index / CJK_TOPICS.length) % CJK_WORDS.length]!;
  return {
    vid: `${prefix}${index.toString(36).padStart(6, '0')}`,
    author_openid: author,
    title: `${topic}${word}`,
    description: '',
    cover_url: `https://cdn.example.com/cover/${index}.jpg`,
    video_url: `https://cdn.example.com/video/${index}.mp4`,
    duration_s: 30 + (index % 600),
    tags: [topic],
    created_at: new Date(nowMs - ((index * 7919) % (90 * 86_400)) * 1000).toISOString(),
    like_count: (index * 31) % 500,
  };
}

/** Imports `count` videos by `authors` (round robin) in chunks; the store batches and parallelizes inside. */
export async function importCatalog(authors: string | string[], from: number, count: number, options: { chunk?: number; prefix?: string; nowMs?: number; lean?: boolean } = {}): Promise<string[]> {
  const byIndex = (i: number) => (typeof authors === 'string' ? authors : authors[i % authors.length]!);
  const chunk = options.chunk ?? 500;
  const nowMs = options.nowMs ?? Date.now();
  const vids: string[] = [];
  for (let start = from; start < from + count; start += chunk) {
    const make = (i: number) => (options.lean ? leanCatalogVideo(i, byIndex(i), nowMs, options.prefix) : catalogVideo(i, byIndex(i), nowMs, 720, options.prefix));
    const inputs = Array.from({ length: Math.min(chunk, from + count - start) }, (_, i) => make(start + i));
    await importVideos(inputs);
    vids.push(...inputs.map((v) => v.vid));
  }
  return vids;
}

import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { importVideos } from '../lib/entities/catalog/import.js';
import type { ImportedVideo } from '../lib/entities/catalog/video-items.js';
import { clock } from '../lib/platform/clock.js';
import { db, isConditionalCheckFailed, tableNames } from '../lib/platform/db/client.js';
import { videoPartitions } from '../lib/entities/catalog/video-items.js';
import { seededRandom } from '../lib/platform/seeded-random.js';
import { accountItem, accountRecord } from '../lib/entities/accounts/accounts.js';

/**
 * The demo catalog `npm start` seeds into an empty store (DEMO_VIDEOS, default 200): bilingual
 * titles, tags from a fixed vocabulary of industry topics, eight authors with favourite topics,
 * creation times spread over the last 60 days and skewed like counts. Deterministic: the same count
 * gives the same vids, texts, authors and counts (creation times are relative to now).
 */
interface Topic {
  zh: string;
  en: string;
  subjects: readonly (readonly [string, string])[];
}

export const DEMO_TOPICS: readonly Topic[] = [
  { zh: '智能制造', en: 'smart manufacturing', subjects: [['数字孪生工厂', 'digital twin factories'], ['柔性产线', 'flexible production lines'], ['工业视觉检测', 'machine vision inspection']] },
  { zh: '新能源', en: 'new energy', subjects: [['光伏组件', 'solar modules'], ['氢燃料电池', 'hydrogen fuel cells'], ['海上风电', 'offshore wind']] },
  { zh: '机器人', en: 'robotics', subjects: [['协作机器人', 'collaborative robots'], ['焊接机器人', 'welding robots'], ['仓储搬运机器人', 'warehouse robots']] },
  { zh: '半导体', en: 'semiconductors', subjects: [['晶圆制造', 'wafer fabrication'], ['芯片封装', 'chip packaging'], ['光刻设备', 'lithography tools']] },
  { zh: '展会', en: 'exhibitions', subjects: [['展位设计', 'booth design'], ['观展攻略', 'visitor guides'], ['展商对接', 'exhibitor matchmaking']] },
  { zh: '物流', en: 'logistics', subjects: [['冷链运输', 'cold chain transport'], ['跨境电商仓', 'cross-border warehouses'], ['港口自动化', 'port automation']] },
  { zh: '医疗器械', en: 'medical devices', subjects: [['影像设备', 'medical imaging'], ['手术机器人', 'surgical robots'], ['体外诊断', 'in-vitro diagnostics']] },
  { zh: '汽车', en: 'automotive', subjects: [['电动汽车平台', 'EV platforms'], ['智能座舱', 'smart cockpits'], ['自动驾驶', 'autonomous driving']] },
  { zh: '人工智能', en: 'artificial intelligence', subjects: [['大模型应用', 'large model applications'], ['边缘计算', 'edge computing'], ['AI质检', 'AI quality control']] },
  { zh: '储能', en: 'energy storage', subjects: [['锂电池储能', 'lithium battery storage'], ['钠离子电池', 'sodium-ion batteries'], ['电网调峰', 'grid peak shaving']] },
  { zh: '工业互联网', en: 'industrial internet', subjects: [['设备联网', 'connected equipment'], ['预测性维护', 'predictive maintenance'], ['5G专网', 'private 5G networks']] },
  { zh: '航空航天', en: 'aerospace', subjects: [['商业航天', 'commercial spaceflight'], ['无人机', 'drones'], ['复合材料', 'composite materials']] },
];

const ANGLES = [
  ['现场直击', 'Live from the floor'],
  ['技术解读', 'Technical deep dive'],
  ['案例分享', 'Case study'],
  ['趋势展望', 'Trend outlook'],
  ['新品发布', 'Product launch'],
  ['专家访谈', 'Expert interview'],
  ['产线实拍', 'Production line tour'],
  ['入门指南', 'Beginner guide'],
] as const;

const EVENTS = [
  ['汉诺威工业博览会', 'Hannover Messe'],
  ['中国国际工业博览会', 'CIIF Shanghai'],
  ['广交会', 'the Canton Fair'],
  ['慕尼黑电子展', 'electronica Munich'],
  ['世界人工智能大会', 'WAIC'],
  ['国际物流展', 'LogiMAT'],
  ['医疗器械博览会', 'CMEF'],
  ['上海车展', 'Auto Shanghai'],
] as const;

/** Demo authors: fixed openids, each with favourite topics (indexes into DEMO_TOPICS). */
export const DEMO_AUTHORS = [
  { openid: 'u_demoAuthor01', nickname: '智造前沿 SmartFab', city: '上海', topics: [0, 2, 10] },
  { openid: 'u_demoAuthor02', nickname: '绿能观察 GreenWatt', city: '深圳', topics: [1, 9] },
  { openid: 'u_demoAuthor03', nickname: '芯视界 ChipView', city: '无锡', topics: [3, 8] },
  { openid: 'u_demoAuthor04', nickname: '展会通 ExpoPass', city: '广州', topics: [4, 5] },
  { openid: 'u_demoAuthor05', nickname: '医械科技 MedTech', city: '北京', topics: [6, 2] },
  { openid: 'u_demoAuthor06', nickname: '汽车新势力 AutoNext', city: '合肥', topics: [7, 9, 8] },
  { openid: 'u_demoAuthor07', nickname: '天空之城 SkyWorks', city: '西安', topics: [11, 3] },
  { openid: 'u_demoAuthor08', nickname: '链上物流 LogiLink', city: '宁波', topics: [5, 10, 0] },
] as const;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const DAY_MS = 86_400_000;

/** The demo videos, deterministic for a given count (creation times relative to `nowMs`). */
export function demoVideos(count: number, nowMs: number, seed = 20261121): ImportedVideo[] {
  const rand = seededRandom(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
  const videos: ImportedVideo[] = [];
  const usedVids = new Set<string>();
  for (let i = 0; i < count; i++) {
    const author = DEMO_AUTHORS[i % DEMO_AUTHORS.length]!;
    // Mostly the author's favourite topics, sometimes anything.
    const topicIndex = rand() < 0.8 ? pick(author.topics) : Math.floor(rand() * DEMO_TOPICS.length);
    const topic = DEMO_TOPICS[topicIndex]!;
    const secondary = DEMO_TOPICS[(topicIndex + 1 + Math.floor(rand() * (DEMO_TOPICS.length - 1))) % DEMO_TOPICS.length]!;
    const [subjectZh, subjectEn] = pick(topic.subjects);
    const [angleZh, angleEn] = pick(ANGLES);
    const [eventZh, eventEn] = pick(EVENTS);
    let vid = '';
    do {
      vid = Array.from({ length: 10 }, () => BASE62[Math.floor(rand() * 62)]).join('');
    } while (usedVids.has(vid));
    usedVids.add(vid);
    const ageMs = Math.floor(rand() * 60 * DAY_MS);
    const tags = rand() < 0.5 ? [topic.zh, secondary.zh, angleZh] : [topic.zh, angleZh];
    videos.push({
      vid,
      author_openid: author.openid,
      title: `${subjectZh}${angleZh}｜${angleEn}: ${subjectEn}`,
      description: `${topic.zh}：${eventZh}上的${subjectZh}${angleZh}。${angleEn} of ${subjectEn} (${topic.en}) at ${eventEn}.`,
      cover_url: `https://cdn.expohub.example.com/demo/${vid}.jpg`,
      video_url: `https://cdn.expohub.example.com/demo/${vid}.mp4`,
      duration_s: 30 + Math.floor(rand() * 570),
      tags,
      created_at: new Date(nowMs - ageMs).toISOString(),
      // Skewed like most catalogs: many small counts, a few popular videos.
      like_count: Math.floor(Math.exp(rand() * 6)) - 1,
    });
  }
  return videos;
}

async function ensureDemoAuthors(nowIso: string): Promise<void> {
  await Promise.all(
    DEMO_AUTHORS.map(async (a) => {
      const account = accountRecord({
        openid: a.openid,
        phone: '',
        nickname: a.nickname,
        signature: 'Demo channel of the expohub catalog',
        city: a.city,
        created_at: nowIso,
      });
      try {
        await db.send(
          new PutCommand({
            TableName: tableNames.hub,
            Item: accountItem(account),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (!isConditionalCheckFailed(error)) throw error;
      }
    }),
  );
}

export async function catalogIsEmpty(): Promise<boolean> {
  const shards = await Promise.all(
    videoPartitions.videos.map((partition) =>
      db.send(
        new QueryCommand({
          TableName: tableNames.hub,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': partition },
          Limit: 1,
        }),
      ),
    ),
  );
  return shards.every((out) => (out.Items ?? []).length === 0);
}

/**
 * Seeds `count` demo videos (and their authors' accounts) when the catalog is empty; returns how
 * many were added (0 when the catalog already had videos or count is 0). Goes through the video
 * store's bulk import, so the videos are in every list, ranking and the search index.
 */
export async function seedDemoCatalog(count: number): Promise<number> {
  if (count <= 0 || !(await catalogIsEmpty())) return 0;
  const nowMs = clock.now();
  await ensureDemoAuthors(new Date(nowMs).toISOString());
  const videos = await importVideos(demoVideos(count, nowMs));
  return videos.length;
}

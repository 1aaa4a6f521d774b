import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { reactionKeys } from '../../entities/catalog/reaction-items.js';
import { videoKeys, videoPartitions, type VideoItem } from '../../entities/catalog/video-items.js';
import { RANKED_ATTRIBUTES, videoCandidate, type CandidateFields } from './sources.js';
import { clock } from '../../platform/clock.js';
import { batchGetHubItems, batchWriteHubItems, inParallel, itemId, type BatchWrite } from '../../platform/db/batch.js';
import { db, tableNames } from '../../platform/db/client.js';
import { trainItemModel, type Action, type Neighbour } from './neighbours.js';
import { feedKeys } from './feed-state.js';
import { neighbourItem, neighbourSignature, type NeighbourEntry } from './neighbour-items.js';

/**
 * The refresh of the feed's learned model (docs/feed.md, "The learned model"): it reads the catalog
 * (every TRENDING shard of gsi3: vid, author, tags, created_at and the trend, which every video is
 * in), every video's likers (gsi2 `LIKERS#vid`, keys only), and for each person who liked anything
 * their view history (gsi1 `HISTORY#openid`, keys only: the vids are in the sort key) and their
 * dislikes (the feed state's `disliked`, BatchGet); trains the model
 * (lib/features/recommend/neighbours.ts trainItemModel) and writes the lists that changed
 * (`VIDEO#vid/NEIGHBOURS`), deleting those of videos left without any. Run by functions/refresh-model.ts on a schedule
 * (infra/constructs/feed-model.ts), by `npm start` on an interval and by the evaluation before it asks.
 * Idempotent: a refresh of unchanged likes writes nothing.
 */
export interface ModelRefresh {
  built: boolean;
  videos: number;
  likes: number;
  /** Views (opened, not liked) read from the likers' histories. */
  views: number;
  people: number;
  /** Videos (columns) and entries of the trained matrix, its ridge penalty (and the share of the mean diagonal its validation chose), and the training's own time (ms, the validation included). */
  model: { videos: number; entries: number; lambda: number; lambdaShare: number; validation: { judged: number; hits: number[] }; trainMs: number };
  /** Videos with a neighbour list after the refresh. */
  lists: number;
  written: number;
  deleted: number;
  /** DynamoDB requests the refresh made: its Queries counted, its batches by their size (a batch's retries of unprocessed items not included; the bench counts every request). */
  requests: number;
  ms: number;
}

const TABLE = () => tableNames.hub;
/** Likers' Queries in flight at once. */
const PARALLEL = 16;

async function queryAll(input: Omit<ConstructorParameters<typeof QueryCommand>[0], 'TableName'>, onPage: (items: Record<string, unknown>[]) => void): Promise<number> {
  let requests = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db.send(new QueryCommand({ TableName: TABLE(), ...input, ...(start ? { ExclusiveStartKey: start } : {}) }));
    requests++;
    onPage((out.Items ?? []) as Record<string, unknown>[]);
    start = out.LastEvaluatedKey;
  } while (start);
  return requests;
}

/** Every video with what a neighbour entry carries (the ranking attributes and the trend): the trending shards hold them all. */
async function readCatalog(): Promise<{ videos: Map<string, CandidateFields>; requests: number }> {
  const videos = new Map<string, CandidateFields>();
  let requests = 0;
  await Promise.all(
    videoPartitions.trending.map(async (partition) => {
      requests += await queryAll(
        { ...RANKED_ATTRIBUTES, IndexName: 'gsi3', KeyConditionExpression: 'gsi3pk = :p', ExpressionAttributeValues: { ':p': partition } },
        (items) => {
          for (const v of items as unknown as VideoItem[]) if (typeof v.vid === 'string' && typeof v.author_openid === 'string') videos.set(v.vid, videoCandidate(v));
        },
      );
    }),
  );
  return { videos, requests };
}

/** Every like of the catalog's videos, from the likers' index (its sort key is `liked_at#openid`). */
async function readLikes(vids: string[]): Promise<{ likes: Action[]; requests: number }> {
  const likes: Action[] = [];
  let requests = 0;
  await inParallel(vids, PARALLEL, async (vid) => {
    requests += await queryAll(
      {
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :p',
        ExpressionAttributeValues: { ':p': reactionKeys.likers(vid) },
        ProjectionExpression: 'gsi2sk',
      },
      (items) => {
        for (const i of items) {
          const key = String(i.gsi2sk);
          const hash = key.indexOf('#');
          if (hash > 0) likes.push({ vid, at: key.slice(0, hash), openid: key.slice(hash + 1), kind: 'like' });
        }
      },
    );
  });
  return { likes, requests };
}

/**
 * Every view of the given people (their view history in gsi1, whose sort key is
 * `seen_at#vid,vid,...`) of videos in the catalog.
 */
async function readViews(people: string[], catalog: ReadonlyMap<string, unknown>): Promise<{ views: Action[]; requests: number }> {
  const views: Action[] = [];
  let requests = 0;
  await inParallel(people, PARALLEL, async (openid) => {
    requests += await queryAll(
      {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': feedKeys.viewHistoryIndex(openid, '', []).gsi1pk },
        ProjectionExpression: 'gsi1sk',
      },
      (items) => {
        for (const i of items) {
          const key = String(i.gsi1sk);
          const hash = key.indexOf('#');
          if (hash <= 0) continue;
          for (const vid of key.slice(hash + 1).split(',')) if (catalog.has(vid)) views.push({ openid, vid, at: key.slice(0, hash), kind: 'view' });
        }
      },
    );
  });
  return { views, requests };
}

/** Each person's disliked vids (their feed state's `disliked`), 100 states a BatchGet. */
async function readDislikes(people: string[]): Promise<{ disliked: Map<string, Set<string>>; requests: number }> {
  const found = await batchGetHubItems(people.map((openid) => feedKeys.feedState(openid)));
  const disliked = new Map<string, Set<string>>();
  for (const openid of people) {
    const set = found.get(itemId(feedKeys.feedState(openid)))?.disliked;
    if (set instanceof Set && set.size > 0) disliked.set(openid, new Set([...set].map(String)));
  }
  return { disliked, requests: Math.ceil(people.length / 100) };
}

export async function refreshRecommendationModel(): Promise<ModelRefresh> {
  const started = performance.now();
  const catalog = await readCatalog();
  const vids = [...catalog.videos.keys()];
  const { likes, requests: likeRequests } = await readLikes(vids);
  const people = [...new Set(likes.map((l) => l.openid))].sort();
  const [{ views, requests: viewRequests }, { disliked, requests: dislikeRequests }] = await Promise.all([readViews(people, catalog.videos), readDislikes(people)]);
  const trainStarted = performance.now();
  const trained = trainItemModel([...likes, ...views], disliked);
  const trainMs = Math.round(performance.now() - trainStarted);
  const model = trained.lists;

  const entries = (list: Neighbour[]): NeighbourEntry[] =>
    list.flatMap((n) => {
      const v = catalog.videos.get(n.vid);
      return v ? [{ ...v, sim: n.sim }] : [];
    });
  const previous = await batchGetHubItems(vids.map((vid) => videoKeys.neighbours(vid)));
  const writes: BatchWrite[] = [];
  let lists = 0;
  let deleted = 0;
  const builtAt = new Date(clock.now()).toISOString();
  for (const vid of vids) {
    const list = entries(model.get(vid) ?? []);
    const old = previous.get(itemId(videoKeys.neighbours(vid)));
    if (list.length === 0) {
      if (old) {
        writes.push({ delete: videoKeys.neighbours(vid) });
        deleted++;
      }
      continue;
    }
    lists++;
    if (old?.sig !== neighbourSignature(list)) writes.push({ put: neighbourItem(vid, list, builtAt) });
  }
  await batchWriteHubItems(writes);
  return {
    built: true,
    videos: vids.length,
    likes: likes.length,
    views: views.length,
    people: people.length,
    model: { videos: trained.videos, entries: trained.entries, lambda: Number(trained.lambda.toPrecision(4)), lambdaShare: trained.lambdaShare, validation: trained.validation, trainMs },
    lists,
    written: writes.length - deleted,
    deleted,
    requests: catalog.requests + likeRequests + viewRequests + dislikeRequests + Math.ceil(vids.length / 100) + Math.ceil(writes.length / 25),
    ms: Math.round(performance.now() - started),
  };
}

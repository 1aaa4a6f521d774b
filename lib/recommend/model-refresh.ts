/**
 * The refresh of the feed's learned model (docs/feed.md): the evaluation and the local server call
 * it after likes change. Being built: until then it has nothing to refresh and says so.
 */
export interface ModelRefresh {
  built: boolean;
}

export async function refreshRecommendationModel(): Promise<ModelRefresh> {
  return { built: false };
}

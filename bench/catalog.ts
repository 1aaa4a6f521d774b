/** Videos for the scenarios that need some; empty until the video store exists in this checkout. */
export async function sampleVideos(_n: number): Promise<string[]> {
  return [];
}

import { useSeededIds } from '../../lib/platform/ids.js';

/**
 * Everything random in a world's run derives from its seed: the world itself (worlds.ts), and in
 * the product the ids and the feed's per-call seed (lib/platform/ids.ts). With the clock pinned to each
 * event (world-child.ts), a seed gives the same figures on every run.
 */
export function seedFeedRandomness(seed: number): void {
  useSeededIds(seed);
}

import { startLocalStack, type LocalStack, type LocalStackOptions } from './local-stack.js';

export interface DemoStack {
  stack: LocalStack;
  /** Demo videos seeded into an empty catalog (0: it had videos, or none were asked for). */
  seededVideos: number;
  /** The default filter term list was seeded (the store had none). */
  seededFilterTerms: boolean;
}

/**
 * What `npm start` runs (local/start.ts): the local stack with the demo catalog and the default
 * filter term list seeded into an empty store before the server listens, so the first answer it gives
 * (`/api/v1/health` included) comes from a catalog that is whole and searchable.
 */
export async function startDemoStack(options: LocalStackOptions & { demoVideos: number }): Promise<DemoStack> {
  let seededVideos = 0;
  let seededFilterTerms = false;
  const { demoVideos, ...stackOptions } = options;
  const stack = await startLocalStack({
    ...stackOptions,
    prepare: async () => {
      // Imported here: the handlers' configuration is set now.
      const { seedDemoCatalog } = await import('./demo-catalog.js');
      seededVideos = await seedDemoCatalog(demoVideos);
      // A default filter term list (docs/moderation.md, "Filter") when the store has none; never deployed.
      const { seedFilterTerms } = await import('../lib/features/filter/terms.js');
      const defaults = (await import('./default-filter-terms.json', { with: { type: 'json' } })).default as { terms: { term: string; action: 'reject' | 'hold' }[] };
      seededFilterTerms = await seedFilterTerms(defaults.terms);
    },
  });
  return { stack, seededVideos, seededFilterTerms };
}

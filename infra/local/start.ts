import { buildWeb } from '../../web/build.js';
import { startLocalStack } from './local-stack.js';

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? '.data';
const demoVideos = Number(process.env.DEMO_VIDEOS || 200);
if (!Number.isInteger(demoVideos) || demoVideos < 0) throw new Error(`DEMO_VIDEOS must be a non-negative integer, got "${process.env.DEMO_VIDEOS}"`);

// The key-management page, built fresh into web/dist and served at `/`.
const staticDir = await buildWeb();
const stack = await startLocalStack({ port, dataDir, staticDir, env: { SHARE_BASE_URL: process.env.SHARE_BASE_URL ?? `http://127.0.0.1:${port}` } });
// The demo catalog goes into an empty store only (imported here: the handlers' config is set now).
const { seedDemoCatalog } = await import('./demo-catalog.js');
const seeded = await seedDemoCatalog(demoVideos);
console.log(seeded > 0 ? `seeded ${seeded} demo videos into the empty catalog` : 'catalog already has videos (or DEMO_VIDEOS=0): nothing seeded');
// A default filter term list (docs/moderation.md, "Filter") when the store has none; never deployed.
const { seedFilterTerms } = await import('../../lib/filter/terms.js');
const defaultTerms = (await import('./default-filter-terms.json', { with: { type: 'json' } })).default as { terms: { term: string; action: 'reject' | 'hold' }[] };
console.log((await seedFilterTerms(defaultTerms.terms)) ? `seeded the default filter term list (${defaultTerms.terms.length} terms)` : 'a filter term list is stored: nothing seeded');
console.log(`expohub is running at ${stack.url}  (data: ${dataDir === 'memory' ? 'in memory' : dataDir}; Ctrl+C stops it)`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal} received, stopping...`);
  await stack.stop();
  console.log('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

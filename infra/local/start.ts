import { buildWeb } from '../../web/build.js';
import { startDemoStack } from './demo-stack.js';

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? '.data';
const demoVideos = Number(process.env.DEMO_VIDEOS || 200);
if (!Number.isInteger(demoVideos) || demoVideos < 0) throw new Error(`DEMO_VIDEOS must be a non-negative integer, got "${process.env.DEMO_VIDEOS}"`);

// The key-management page, built fresh into web/dist and served at `/`.
const staticDir = await buildWeb();
// The demo catalog and the default filter terms go into an empty store before the server listens.
const { stack, seededVideos, seededFilterTerms } = await startDemoStack({ port, dataDir, staticDir, demoVideos, env: { SHARE_BASE_URL: process.env.SHARE_BASE_URL ?? `http://127.0.0.1:${port}` } });
console.log(seededVideos > 0 ? `seeded ${seededVideos} demo videos into the empty catalog` : 'catalog already has videos (or DEMO_VIDEOS=0): nothing seeded');
console.log(seededFilterTerms ? 'seeded the default filter term list' : 'a filter term list is stored: nothing seeded');
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

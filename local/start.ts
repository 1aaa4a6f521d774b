import { buildWeb } from '../web/build.js';
import { startDemoStack } from './demo-stack.js';
import type { LocalStack } from './local-stack.js';

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? '.data';
const demoVideos = Number(process.env.DEMO_VIDEOS || 200);
if (!Number.isInteger(demoVideos) || demoVideos < 0) throw new Error(`DEMO_VIDEOS must be a non-negative integer, got "${process.env.DEMO_VIDEOS}"`);
/** A stop that has not finished by then ends DynamoDB Local at once (docs/testing.md, "The local runtime"). */
const STOP_DEADLINE_MS = 15_000;

let stack: LocalStack | undefined = undefined;
let stopping = false;
async function shutdown(signal: string) {
  if (stopping || !stack) {
    // A second Ctrl+C, or a signal while starting: exit now. DynamoDB Local's watchdog
    // (local/dynamodb-local.ts) ends it with us.
    console.log(`\n${signal} received${stack ? ' again' : ' while starting'}: exiting now`);
    process.exit(130);
  }
  stopping = true;
  console.log(`\n${signal} received, stopping...`);
  setTimeout(() => {
    console.error(`not stopped within ${STOP_DEADLINE_MS / 1000} s: exiting now`);
    process.exit(1);
  }, STOP_DEADLINE_MS).unref();
  await stack.stop();
  console.log('stopped');
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
// The terminal closed: stop the same way (DynamoDB Local, in a process group of its own, does not get it).
process.on('SIGHUP', () => void shutdown('SIGHUP'));

// The key-management page, built fresh into web/dist and served at `/`.
const staticDir = await buildWeb();
// The demo catalog and the default filter terms go into an empty store before the server listens.
const demo = await startDemoStack({ port, dataDir, staticDir, demoVideos, env: { SHARE_BASE_URL: process.env.SHARE_BASE_URL ?? `http://127.0.0.1:${port}` } });
stack = demo.stack;
console.log(demo.seededVideos > 0 ? `seeded ${demo.seededVideos} demo videos into the empty catalog` : 'catalog already has videos (or DEMO_VIDEOS=0): nothing seeded');
console.log(demo.seededFilterTerms ? 'seeded the default filter term list' : 'a filter term list is stored: nothing seeded');
console.log(`DynamoDB Local at ${stack.dynamoEndpoint}`);
console.log(`expohub is running at ${stack.url}  (data: ${dataDir === 'memory' ? 'in memory' : dataDir}; Ctrl+C stops it)`);

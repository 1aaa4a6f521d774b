import { buildWeb } from '../../web/build.js';
import { startLocalStack } from './local-stack.js';

const port = Number(process.env.PORT ?? 3000);
const dataDir = process.env.DATA_DIR ?? '.data';

// The key-management page, built fresh into web/dist and served at `/`.
const staticDir = await buildWeb();
const stack = await startLocalStack({ port, dataDir, staticDir, env: { SHARE_BASE_URL: process.env.SHARE_BASE_URL ?? `http://127.0.0.1:${port}` } });
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

/**
 * The local server alone, in its own process, for the load section: autocannon and the server do
 * not share an event loop. The parent passes the bench environment; this prints the URL.
 */
import { startLocalServer } from '../local/server.js';
const server = await startLocalServer({ port: 0 });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
const stopServer = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stopServer());
process.on('SIGINT', () => void stopServer());

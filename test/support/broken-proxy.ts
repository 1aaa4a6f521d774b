import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy to a real server that answers 500 on one path (any query string): a broken route, with
 * every other request answered by the server behind it (test/e2e/smoke.test.ts, synthetic-check.test.ts).
 */
export async function proxyBreaking(targetUrl: string, brokenPath: string): Promise<{ url: string; close(): Promise<void> }> {
  const target = new URL(targetUrl);
  const server: Server = createServer((req, res) => {
    if (new URL(req.url!, 'http://x').pathname === brokenPath) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"code":"INTERNAL_ERROR","error":"broken on purpose"}');
      return;
    }
    const upstream = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import type { ChildProcess } from 'node:child_process';
import { get } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../local/dynamodb-local.js';
import { childProcessOf, isRunning } from '../../local/process-info.js';
import { startLocalServerProcess } from '../support/local-process.js';

/** One GET on a connection of its own (no keep-alive): its status, or the connection error's code. */
const getOnce = (url: string) =>
  new Promise<{ status: number } | { error: string }>((resolveGet) => {
    get(url, { agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolveGet({ status: res.statusCode ?? 0 }));
      res.once('error', (error: NodeJS.ErrnoException) => resolveGet({ error: error.code ?? error.message }));
    }).once('error', (error: NodeJS.ErrnoException) => resolveGet({ error: error.code ?? error.message }));
  });

let server: ChildProcess | undefined;
let java: number | undefined;
afterEach(() => {
  // A failed test must not leave the server or its JVM behind.
  if (server?.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  if (java && isRunning(java)) process.kill(java, 'SIGKILL');
});

describe('npm start (local/start.ts): stops on a signal', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s during load: every request answered or refused cleanly, then the server and DynamoDB Local are gone', async (signal) => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const started = await startLocalServerProcess(port, { DATA_DIR: 'memory', DEMO_VIDEOS: '30' });
    server = started.server;
    const { exited } = started;
    java = childProcessOf(server.pid!, 'java');
    expect(java, 'DynamoDB Local runs as a child of the server').toBeDefined();

    // Load: 6 clients asking for feeds (each answer reads DynamoDB), each request on a connection of
    // its own. The signal goes when 30 have been answered, with the other clients' requests in flight;
    // no client sends another after it.
    const statuses: number[] = [];
    const errors: string[] = [];
    let signalled = false;
    const client = async () => {
      while (!signalled) {
        const answer = await getOnce(`${base}/api/v1?do=get_next_list&openid=guest&order=hot&watch_count=10`);
        if ('error' in answer) errors.push(answer.error);
        else statuses.push(answer.status);
        if (statuses.length >= 30 && !signalled) {
          signalled = true;
          // After the connections of the requests sent so far are made (net.connect makes them on
          // the next tick), so each is accepted or in the server's listen backlog when the signal goes.
          setImmediate(() => server!.kill(signal));
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, client));

    // A generous bound on waiting, not a measure of speed: the stop is bounded by its own deadline.
    const [code] = await exited;
    expect(code).toBe(0);
    expect(started.output()).toContain(`${signal} received, stopping`);
    expect(started.output()).toContain('stopped');
    expect(isRunning(java!), 'DynamoDB Local survived the server').toBe(false);
    expect(statuses.length).toBeGreaterThanOrEqual(30);
    // Every request answered, those in flight at the signal included: 200, or 503 UNAVAILABLE while
    // stopping; never a 500, never a connection cut under a request. Then nothing listens.
    expect(errors).toEqual([]);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(await getOnce(`${base}/api/v1/health`)).toEqual({ error: 'ECONNREFUSED' });
  }, 120_000);
});

import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/dynamodb-local.js';
import { childProcessOf, isRunning } from '../../local/process-info.js';
import { hub, signUp, type SignedUp } from '../support/hub-fixtures.js';
import { startLocalServerProcess, type LocalServerProcess } from '../support/local-process.js';
import { apiClient } from '../support/stack.js';

/**
 * npm start stopped by a signal to its whole process group (Ctrl+C in a terminal, a process manager
 * stopping the group) during a burst of comments on one video, then started again on the same data
 * directory (docs/testing.md, "The local runtime"). DynamoDB Local runs in a process group of its
 * own, so the signal reaches the server only, which answers what is in flight before it stops the
 * store: no comment is left half-written, so `total` counts exactly the comments the pages list,
 * and a request cut by the stop answers 503, never 500.
 */
let dataDir: string;
const running: ChildProcess[] = [];
afterAll(async () => {
  for (const child of running) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function startServer(port: number): Promise<LocalServerProcess> {
  const started = await startLocalServerProcess(port, { DATA_DIR: dataDir, DEMO_VIDEOS: '3', RATE_SMS_IP_HOURLY: '1000' }, { ownGroup: true });
  running.push(started.server);
  return started;
}

describe('npm start: a signal to the process group during a burst of comments, then a restart on the same data', () => {
  it('answers every comment 200 or 503 and, after the restart, lists exactly the comments it counts', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'expohub-restart-'));
    const port = await freePort();
    const api = apiClient(`http://127.0.0.1:${port}`, { settle: false });
    const first = await startServer(port);
    const java = childProcessOf(first.server.pid!, 'java');
    expect(java, 'DynamoDB Local runs as a child of the server').toBeDefined();

    const people: SignedUp[] = [];
    for (let i = 0; i < 20; i++) people.push(await signUp(api));
    const page = await hub<{ list: { vid: string }[] }>(api, 'get_next_list', { openid: people[0]!.openid, token: people[0]!.token, order: 'new', watch_count: 1 });
    const vid = page.data.list[0]!.vid;

    // 20 writers, 3 comments each, all at once; the group gets SIGTERM once 20 are acknowledged,
    // with the others in flight or still to come.
    const acknowledged: string[] = [];
    const statuses: number[] = [];
    let signalled = false;
    await Promise.all(
      people.map(async (person, i) => {
        for (let j = 0; j < 3; j++) {
          const content = `comment ${i}.${j}`;
          const answer = await hub(api, 'comment_set', { openid: person.openid, token: person.token, vid, content }).catch(() => undefined);
          if (answer) statuses.push(answer.status);
          if (answer?.status === 200) acknowledged.push(content);
          if (acknowledged.length >= 20 && !signalled) {
            signalled = true;
            process.kill(-first.server.pid!, 'SIGTERM');
          }
        }
      }),
    );
    const [code] = await first.exited;
    expect(code, first.output()).toBe(0);
    expect(isRunning(java!), 'DynamoDB Local survived the server').toBe(false);
    // Answered while the store was still there: 200, or 503 once stopping; never a 500.
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    expect(first.output()).not.toContain('comment number neither given back nor marked as a gap');

    const second = await startServer(port);
    const listed: string[] = [];
    let total = -1;
    for (let n = 1; n <= 5; n++) {
      const comments = await hub<{ list: { content: string }[]; total: number; has_more: boolean }>(api, 'comment_get', { openid: people[0]!.openid, token: people[0]!.token, vid, page: n, d: 'device-1' });
      expect(comments.status).toBe(200);
      listed.push(...comments.data.list.map((c) => c.content));
      total = comments.data.total;
      if (!comments.data.has_more) break;
    }
    // Every acknowledged comment is there; a comment written while its answer was cut may be too.
    expect(listed).toEqual(expect.arrayContaining(acknowledged));
    expect(new Set(listed).size).toBe(listed.length);
    expect(total).toBe(listed.length);
    second.server.kill('SIGTERM');
    expect((await second.exited)[0]).toBe(0);
  }, 300_000);
});

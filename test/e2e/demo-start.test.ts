import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startDemoStack, type DemoStack } from '../../local/demo-stack.js';
import { ensureDynamoDbLocal } from '../support/dynamo.js';

/** A port nothing listens on now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });

type Feed = { code: 0; data: { list: { vid: string }[] } };
const search = async (base: string, q: string) =>
  ((await (await fetch(`${base}/api/v1?${new URLSearchParams({ do: 'get_next_list', openid: 'guest', order: 'new', watch_count: '20', q })}`)).json()) as Feed).data.list.length;

let demo: DemoStack | undefined;
afterAll(async () => demo?.stack.stop());

describe('npm start (local/start.ts): ready when it answers', () => {
  it('the first answer of /api/v1/health comes from a demo catalog that is whole and searchable', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const starting = startDemoStack({ port, dataDir: 'memory', dynamoEndpoint: await ensureDynamoDbLocal(), tablePrefix: process.env.TEST_TABLE_PREFIX, demoVideos: 120 });
    // As a newcomer (or a script) does: ask until the server answers, then search at once.
    let healthy = false;
    while (!healthy) {
      healthy = await fetch(`${base}/api/v1/health`).then((r) => r.ok, () => false);
      // Refused while it starts: ask again a moment later (polling a port, not timing anything).
      if (!healthy) await Promise.race([starting, new Promise((r) => setTimeout(r, 25))]);
    }
    const first = await Promise.all(['展会', '机器人', '半导体'].map((q) => search(base, q)));
    demo = await starting;
    expect(demo.seededVideos).toBe(120);
    expect(demo.seededFilterTerms).toBe(true);
    const later = await Promise.all(['展会', '机器人', '半导体'].map((q) => search(base, q)));
    expect(first).toEqual(later);
    expect(first[0]).toBeGreaterThan(0);
  }, 120_000);
});

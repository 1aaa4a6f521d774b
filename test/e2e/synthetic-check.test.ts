import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { accountKeys } from '../../lib/entities/accounts/accounts.js';
import { configure } from '../../lib/platform/config.js';
import { db, tableNames } from '../../lib/platform/db/client.js';
import { hashApiKey } from '../../lib/features/keys/key-material.js';
import { keyRecordKeys } from '../../lib/features/keys/key-records.js';
import { SYNTHETIC_CHECK_NAMES } from '../../lib/platform/observability/metric-names.js';
import { CANARY_OWNER, canaryKeyOf, ensureCanaryKey } from '../../lib/features/smoke/canary-key.js';
import { lambdaContext } from '../../local/server.js';
import { handler } from '../../functions/synthetic-check.js';
import { proxyBreaking } from '../support/broken-proxy.js';
import { captureOutput, emfLines, logLines, type Capture } from '../support/log-capture.js';
import { getHubItem, putTestAccounts } from '../support/hub-fixtures.js';
import { apiClient, startTestStack } from '../support/stack.js';

// The scheduled synthetic check (functions/synthetic-check.ts) run in-process, as Lambda runs it,
// against the local server over HTTP and this file's DynamoDB Local: the canary key made from its
// secret, the checks, and the metrics it publishes (docs/deploy.md, "The synthetic check").
const CANARY_SECRET = 'SyntheticCanary0123456789abcdefZ';
const CANARY_KEY = `ak_${CANARY_SECRET}`;

let stack: Awaited<ReturnType<typeof startTestStack>>;
let output: Capture;

beforeAll(async () => {
  const staticDir = mkdtempSync(join(tmpdir(), 'expohub-static-'));
  writeFileSync(join(staticDir, 'index.html'), '<!doctype html><title>page</title>');
  stack = await startTestStack({ staticDir, env: { CANARY_KEY_SECRET: CANARY_SECRET, LOG_LEVEL: 'INFO', POWERTOOLS_METRICS_DISABLED: 'false' } });
});
afterAll(async () => {
  delete process.env.SYNTHETIC_BASE_URL;
  await stack?.stop();
});

/** The check pointed at `baseUrl` (deployed: the distribution's URL), run once; its output captured. */
async function runAgainst(baseUrl: string) {
  process.env.SYNTHETIC_BASE_URL = baseUrl;
  configure(process.env);
  output = captureOutput();
  try {
    return (await handler({}, lambdaContext('syntheticCheck', `run-${Math.random()}`))) as { passed: boolean; failed: string[] };
  } finally {
    output.restore();
  }
}
const success = (check: string) => emfLines(output.lines, 'SyntheticSuccess', { check }).map((l) => l.SyntheticSuccess);
const canaryRecords = async () =>
  (
    await db.send(
      new QueryCommand({
        TableName: tableNames.apiKeys,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keyRecordKeys.userPartition(CANARY_OWNER), ':prefix': keyRecordKeys.recordPrefix },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

describe('the synthetic check against the local server', () => {
  it('passes every check with the canary key it creates on its first run, and publishes success and latency per check', async () => {
    expect(await canaryRecords()).toEqual([]);
    expect(await runAgainst(stack.url)).toEqual({ passed: true, failed: [] });

    for (const check of SYNTHETIC_CHECK_NAMES) {
      expect(success(check), check).toEqual([1]);
      const latency = emfLines(output.lines, 'SyntheticLatency', { check });
      expect(latency, check).toHaveLength(1);
      expect(latency[0]!.SyntheticLatency).toEqual(expect.any(Number));
      expect(latency[0]!._aws).toMatchObject({ CloudWatchMetrics: [{ Namespace: 'expohub', Dimensions: [['service', 'check']], Metrics: [{ Name: 'SyntheticLatency', Unit: 'Milliseconds' }] }] });
    }
    expect(success('all')).toEqual([1]);
    expect(logLines(output.lines).filter((l) => l.message === 'synthetic check passed')).toHaveLength(1);

    const records = await canaryRecords();
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ user_id: CANARY_OWNER, key_hash: hashApiKey(CANARY_KEY), is_active: true, scopes: ['hub:read'] });
    // The canary is no person: its owner has no account item (so no export, admin list or feed shows it).
    expect(await getHubItem(accountKeys.account(CANARY_OWNER))).toBeUndefined();
    // Neither the key nor its secret part is in any line.
    expect(output.rawLines.join('\n')).not.toContain(CANARY_SECRET);
  });

  it('a second run finds the canary key: still one record, one guard, no id taken', async () => {
    await runAgainst(stack.url);
    const counter = async () => (await db.send(new GetCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.idCounter, ConsistentRead: true }))).Item?.n;
    const before = await counter();
    expect(await runAgainst(stack.url)).toEqual({ passed: true, failed: [] });
    expect(await counter()).toBe(before);
    expect(await canaryRecords()).toHaveLength(1);
    expect(logLines(output.lines).filter((l) => l.message === 'synthetic check: canary key created')).toEqual([]);
  });

  it("is no person: an administrator's export of every account does not hold its owner", async () => {
    await runAgainst(stack.url);
    const [admin] = await putTestAccounts(1, ['admin']);
    const api = apiClient(stack.url);
    const openids: string[] = [];
    let cursor = '';
    for (let page = 0; page < 50; page++) {
      const res = await api.get<{ items: { openid: string }[]; next_cursor: string | null }>(`/api/v1/export/accounts?limit=100${cursor && `&cursor=${encodeURIComponent(cursor)}`}`, { token: admin!.token });
      expect(res.status).toBe(200);
      openids.push(...res.data.items.map((r) => r.openid));
      if (!res.data.next_cursor) break;
      cursor = res.data.next_cursor;
    }
    expect(openids).toContain(admin!.openid);
    expect(openids).not.toContain(CANARY_OWNER);
  });

  it('two provisionings at once of a new canary value make one key', async () => {
    const key = canaryKeyOf('Concurrent0123456789abcdefghijkl');
    const outcomes = await Promise.all([ensureCanaryKey(key), ensureCanaryKey(key), ensureCanaryKey(key)]);
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(1);
    expect((await canaryRecords()).filter((r) => r.key_hash === hashApiKey(key))).toHaveLength(1);
    const guard = await db.send(new GetCommand({ TableName: tableNames.apiKeys, Key: keyRecordKeys.hashGuard(hashApiKey(key)), ConsistentRead: true }));
    expect(guard.Item).toMatchObject({ user_id: CANARY_OWNER });
  });

  it('a broken route fails its check and the run (SyntheticSuccess 0 for it and for all), the others still pass', async () => {
    const proxy = await proxyBreaking(stack.url, '/api/v1/health');
    try {
      expect(await runAgainst(proxy.url)).toEqual({ passed: false, failed: ['health'] });
    } finally {
      await proxy.close();
    }
    expect(success('health')).toEqual([0]);
    expect(success('all')).toEqual([0]);
    for (const check of SYNTHETIC_CHECK_NAMES.filter((c) => c !== 'health')) expect(success(check), check).toEqual([1]);
    const [line] = logLines(output.lines).filter((l) => l.message === 'synthetic check failed');
    expect(line).toMatchObject({ level: 'WARN', passed: false, failed: ['health'] });
    expect(JSON.stringify(line)).toContain('expected 200, got 500: broken on purpose');
  });

  it('a canary secret that is no key part fails the key checks, naming why, and still runs the others', async () => {
    process.env.CANARY_KEY_SECRET = 'too-short';
    try {
      expect(await runAgainst(stack.url)).toEqual({ passed: false, failed: ['verify', 'me', 'usage'] });
    } finally {
      process.env.CANARY_KEY_SECRET = CANARY_SECRET;
    }
    expect(success('health')).toEqual([1]);
    expect(success('verify')).toEqual([0]);
    expect(emfLines(output.lines, 'SyntheticLatency', { check: 'verify' })).toEqual([]);
    expect(output.rawLines.join('\n')).not.toContain('too-short');
  });
});

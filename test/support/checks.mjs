// `npm test`'s first step (package.json): the npm scripts named on the command line, all at once
// (the typecheck and the lint are one process each, on one core each: together they take as long as
// the longer, not the sum). Each one's output is printed when it ends, in one piece; the step fails
// if any of them failed, after all have ended.
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const results = await Promise.all(
  scripts.map(
    (script) =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn(npm, ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('error', (error) => resolve({ script, code: 1, output: `${output}${error.message}\n`, seconds: 0 }));
        child.on('close', (code, signal) => {
          const result = { script, code: code ?? 1, signal, output, seconds: (Date.now() - started) / 1000 };
          process.stdout.write(`> npm run ${script}: ${code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`} in ${result.seconds.toFixed(1)} s\n${output}`);
          resolve(result);
        });
      }),
  ),
);
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;

// Reading answers: from the terminal with a prompt, or line by line from a pipe (scripts and tests).
import process from 'node:process';
import { createInterface } from 'node:readline';
import { clearProgress, CliError, EXIT } from './output.mjs';

let lines;
let pending = [];
let ended = false;
const waiting = [];

function reader() {
  if (!lines) {
    lines = createInterface({ input: process.stdin, terminal: false });
    lines.on('line', (line) => {
      const next = waiting.shift();
      if (next) next(line);
      else pending.push(line);
    });
    lines.on('close', () => {
      ended = true;
      for (const next of waiting.splice(0)) next(undefined);
    });
  }
  return lines;
}

/** The next line of stdin (after showing `question` on stderr), or undefined at the end of input. */
export function ask(question) {
  clearProgress();
  process.stderr.write(question);
  reader();
  if (pending.length > 0) return Promise.resolve(pending.shift());
  if (ended) return Promise.resolve(undefined);
  return new Promise((resolve) => waiting.push(resolve));
}

/** Like ask(), but a missing answer is a failure of the command. */
export async function required(question, what) {
  const answer = (await ask(question))?.trim();
  if (!answer) throw new CliError(`no ${what} given (stdin ended)`, { exitCode: EXIT.USAGE, code: 'NO_INPUT' });
  return answer;
}

/** Stops reading stdin so that the process can end. */
export function closeInput() {
  lines?.close();
  pending = [];
}

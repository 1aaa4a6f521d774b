// Output: stdout carries the command's result (a table, a key, NDJSON rows, or JSON with --json);
// stderr carries messages, errors and progress. Everything written to stderr passes through redact():
// a credential must never appear, even inside an error message from a lower layer.
import process from 'node:process';

/** Exit codes (docs/cli.md, "Exit codes"). */
export const EXIT = Object.freeze({
  OK: 0,
  FAILED: 1,
  USAGE: 2,
  AUTH: 3,
  FORBIDDEN: 4,
  NOT_FOUND: 5,
  BUSY: 6,
});

export class UsageError extends Error {}

/** A failure a command reports and exits with: `exitCode` from EXIT, `code` the envelope's code. */
export class CliError extends Error {
  /**
   * @param {string} message
   * @param {{ exitCode?: number, code?: string, status?: number }} [details]
   */
  constructor(message, { exitCode = EXIT.FAILED, code = 'FAILED', status = 0 } = {}) {
    super(message);
    this.exitCode = exitCode;
    this.code = code;
    this.status = status;
  }
}

const secrets = new Set();
/** Registers a value that must never be written to the terminal (a key, a token, an SMS code). */
export function addSecret(value) {
  if (typeof value === 'string' && value.length >= 4) secrets.add(value);
}
export function redact(text) {
  let out = String(text);
  for (const secret of secrets) out = out.split(secret).join('[redacted]');
  return out;
}

export const settings = { json: false, quiet: false };
const isTty = () => Boolean(process.stderr.isTTY);
let progressShown = false;

export function clearProgress() {
  if (progressShown) {
    process.stderr.write('\r\x1b[2K');
    progressShown = false;
  }
}

/** A message for a person, on stderr (a JSON line `{message}` with --json). */
export function log(message) {
  clearProgress();
  process.stderr.write(`${redact(settings.json ? JSON.stringify({ message: String(message) }) : message)}\n`);
}

/** An error on stderr: a line for a person, or `{error: {code, message, status}, exit_code}` with --json. */
export function logError(error, exitCode) {
  clearProgress();
  if (settings.json) {
    const body = { error: { code: error.code ?? 'FAILED', message: String(error.message), ...(error.status ? { status: error.status } : {}) }, exit_code: exitCode };
    process.stderr.write(`${redact(JSON.stringify(body))}\n`);
  } else {
    // A refused request names the envelope's code (AUTH_ERROR, VALIDATION_ERROR, ...), as scripts grep for it.
    process.stderr.write(`${redact(`expohub: ${error.status ? `${error.code}: ` : ''}${error.message}`)}\n`);
  }
}

/** A summary object at the end of long work: a JSON line with --json, otherwise its sentence. */
export function logSummary(sentence, summary) {
  if (settings.json) {
    clearProgress();
    process.stderr.write(`${redact(JSON.stringify({ summary }))}\n`);
  } else {
    log(sentence);
  }
}

/**
 * Progress of long work on stderr: `tty` redrawn in place on a terminal (cleared when `final`),
 * otherwise `plain` as a line of its own when given. Nothing with --quiet or --json.
 * @param {{ tty: string, plain?: string, final?: boolean }} text
 */
export function progress({ tty, plain, final = false }) {
  if (settings.quiet || settings.json) return;
  if (isTty()) {
    process.stderr.write(`\r\x1b[2K${redact(tty)}`);
    progressShown = true;
    if (final) clearProgress();
  } else if (plain !== undefined) {
    process.stderr.write(`${redact(plain)}\n`);
  }
}

/** Writes to stdout, waiting when the pipe is full; resolves false when the reader went away. */
export function writeOut(text) {
  return new Promise((resolve) => {
    if (process.stdout.destroyed) return resolve(false);
    const ok = process.stdout.write(text, (error) => {
      if (error) resolve(false);
    });
    if (ok) resolve(true);
    else process.stdout.once('drain', () => resolve(true));
  });
}

process.stdout.on('error', (error) => {
  // A reader like `head` closing the pipe early is not an error of ours.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT.OK);
});

/** The result of a command: JSON with --json, otherwise the text a person reads. */
export async function result(value, text) {
  await writeOut(settings.json ? `${JSON.stringify(value, null, 2)}\n` : text.endsWith('\n') || text === '' ? text : `${text}\n`);
}

/** A plain-text table: columns padded to their widest cell. */
export function table(headers, rows) {
  const cells = [headers, ...rows].map((row) => row.map((c) => String(c ?? '')));
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => row[i].length)));
  return cells.map((row) => row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n');
}

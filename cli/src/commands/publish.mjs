// expohub publish FILE.jsonl [--dry-run]: one video per line, NDJSON results on stdout.
import { readFile } from 'node:fs/promises';
import { RequestError } from '../http.mjs';
import { OPERATIONS } from '../vendor/client.mjs';
import { EXIT, log, logSummary, progress as showProgress, UsageError, writeOut } from '../output.mjs';
import { apiClient } from './session.mjs';

/** Non-empty lines of the file with their 1-based line numbers. */
async function readJsonLines(file) {
  let text;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`);
  }
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((source, index) => ({ line: index + 1, source: source.trim() }))
    .filter((l) => l.source.length > 0);
}

function createProgress(total, verb) {
  let done = 0;
  let ok = 0;
  let failed = 0;
  let nextPlainReport = Math.max(1, Math.ceil(total / 10));
  return {
    record(success) {
      done += 1;
      if (success) ok += 1;
      else failed += 1;
      const width = 30;
      const filled = total === 0 ? width : Math.round((done / total) * width);
      const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}  ok ${ok}  failed ${failed}`;
      const report = done >= nextPlainReport || done === total;
      if (report) nextPlainReport = done + Math.max(1, Math.ceil(total / 10));
      showProgress({ tty: bar, plain: report ? `progress: ${done}/${total} lines ${verb} (ok ${ok}, failed ${failed})` : undefined, final: done === total });
    },
  };
}

const describeFailure = (error) => (error instanceof RequestError ? `${error.code}: ${error.message}` : String(error?.message ?? error));

export async function publish(args, options) {
  if (args.length !== 1) throw new UsageError('publish needs exactly one file: expohub publish FILE.jsonl [--dry-run]');
  const { call } = await apiClient(options);
  const lines = await readJsonLines(args[0]);
  const dryRun = Boolean(options.dryRun);
  const progress = createProgress(lines.length, dryRun ? 'checked' : 'published');
  const failures = [];
  const actions = { create: 0, update: 0 };
  let succeeded = 0;
  /** @type {RequestError | undefined} */
  let stopReason;
  // Lines with the same external_id run in file order, so the last line wins as in a sequential run.
  const inFlightByExternalId = new Map();

  async function publishLine({ line, source }) {
    let video;
    try {
      video = JSON.parse(source);
    } catch (error) {
      throw new RequestError(0, 'INVALID_JSON', `not valid JSON (${error.message})`);
    }
    if (typeof video !== 'object' || video === null || Array.isArray(video)) throw new RequestError(0, 'INVALID_JSON', 'the line must be a JSON object');
    // The client sends a video's fields as the body and any other name in the query string: a name the
    // server's strict body would refuse is refused here, with the server's words.
    const fields = OPERATIONS['videos.publish'].body;
    const unknown = Object.keys(video).find((name) => !fields.includes(name));
    if (unknown !== undefined) throw new RequestError(400, 'VALIDATION_ERROR', `Invalid parameter "${unknown}": is not a field of this body; its fields are ${fields.join(', ')}`);
    const externalId = typeof video.external_id === 'string' ? video.external_id : undefined;
    if (dryRun) {
      // Checked by the server exactly as a publish, and nothing written: safe to retry.
      const checked = await call('videos.publish', { ...video, dry_run: 'true' }, { idempotent: true });
      const answer = /** @type {{ action: 'create' | 'update', vid: string | null }} */ (/** @type {unknown} */ (checked));
      actions[answer.action] += 1;
      await writeOut(`${JSON.stringify({ line, action: answer.action, vid: answer.vid, external_id: externalId ?? null })}\n`);
      return;
    }
    const previous = externalId === undefined ? undefined : inFlightByExternalId.get(externalId);
    const run = (async () => {
      await previous?.catch(() => undefined);
      // Without an external_id a repeated request could add a second video, so only a refused
      // connection is retried; with one the server makes the retry an update.
      return call('videos.publish', video, { idempotent: externalId !== undefined });
    })();
    if (externalId !== undefined) inFlightByExternalId.set(externalId, run);
    /** @type {{ created?: boolean, video?: { vid: string } }} */
    let data;
    try {
      data = /** @type {any} */ (await run);
    } finally {
      if (externalId !== undefined && inFlightByExternalId.get(externalId) === run) inFlightByExternalId.delete(externalId);
    }
    actions[data?.created === false ? 'update' : 'create'] += 1;
    await writeOut(`${JSON.stringify({ line, vid: data?.video?.vid ?? null, external_id: externalId ?? null, created: data?.created ?? null })}\n`);
  }

  let next = 0;
  async function worker() {
    while (next < lines.length && !stopReason) {
      const item = lines[next++];
      try {
        await publishLine(item);
        succeeded += 1;
        progress.record(true);
      } catch (error) {
        failures.push(item.line);
        log(`line ${item.line}: ${describeFailure(error)}`);
        progress.record(false);
        // A refused credential fails every line alike: stop instead of repeating it.
        if (error instanceof RequestError && (error.status === 401 || error.status === 403)) stopReason = error;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(options.concurrency, Math.max(1, lines.length)) }, worker));

  const skipped = lines.length - succeeded - failures.length;
  failures.sort((a, b) => a - b);
  const parts = [dryRun ? `dry run, nothing published: ${succeeded} of ${lines.length} lines would publish (${actions.create} new, ${actions.update} updates)` : `published ${succeeded} of ${lines.length} lines`];
  if (failures.length > 0) parts.push(`${failures.length} failed (line${failures.length === 1 ? '' : 's'} ${failures.slice(0, 20).join(', ')}${failures.length > 20 ? ', ...' : ''})`);
  if (skipped > 0) parts.push(`${skipped} not attempted: stopped after ${stopReason.status} ${stopReason.code}`);
  logSummary(parts.join('; '), {
    dry_run: dryRun,
    lines: lines.length,
    succeeded,
    created: actions.create,
    updated: actions.update,
    failed_lines: failures,
    not_attempted: skipped,
  });
  if (stopReason) return stopReason.exitCode;
  return failures.length > 0 ? EXIT.FAILED : EXIT.OK;
}

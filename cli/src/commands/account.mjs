// expohub account export [-o FILE]: a copy of everything the server stores about the signed-in account.
import { rename, rm, writeFile } from 'node:fs/promises';
import process from 'node:process';
import { CliError, EXIT, logSummary, progress, UsageError, writeOut } from '../output.mjs';
import { loginClient } from './session.mjs';

export async function account(args, options, env = process.env) {
  const [command, ...rest] = args;
  switch (command) {
    case 'export':
      return exportAccount(rest, options, env);
    case undefined:
      throw new UsageError('account needs a command: export');
    default:
      throw new UsageError(`unknown account command "${command}": use export`);
  }
}

/**
 * Follows `GET /api/v1/me/data` from its first page to its last and writes ONE JSON document: the
 * first page's `format`, `generated_at` and `account`, then every page's records in order. Nothing
 * is written unless every page was read: a failed run leaves no partial file. The file holds the
 * account's personal data (the phone number in full): it is created readable by its owner only (600).
 */
async function exportAccount(args, options, env) {
  if (args.length !== 0) throw new UsageError('account export takes options only: expohub account export [-o FILE]');
  const { call } = await loginClient(options, env, 'downloading your data');
  /** @type {Record<string, unknown> | undefined} */
  let head;
  const records = [];
  let pages = 0;
  let cursor = '';
  do {
    const data = await call('GET', '/api/v1/me/data', { query: cursor ? { cursor } : {} });
    pages += 1;
    head ??= { format: data.format, generated_at: data.generated_at, account: data.account ?? null };
    records.push(...data.records);
    cursor = typeof data.next_cursor === 'string' ? data.next_cursor : '';
    progress({ tty: `account export: ${records.length} records, ${pages} pages`, final: !cursor });
  } while (cursor);
  const text = `${JSON.stringify({ ...head, records }, null, 2)}\n`;
  if (options.output) {
    // Written beside the target, then renamed over it: the file is either the whole export or absent.
    const partial = `${options.output}.partial-${process.pid}`;
    try {
      await writeFile(partial, text, { mode: 0o600, flag: 'wx' });
      await rename(partial, options.output);
    } catch (error) {
      await rm(partial, { force: true });
      throw new CliError(`cannot write ${options.output}: ${error?.message ?? error}`, { code: 'WRITE_FAILED' });
    }
  } else if (!(await writeOut(text))) {
    return EXIT.OK;
  }
  const where = options.output ? ` to ${options.output}` : '';
  logSummary(`exported ${records.length} record${records.length === 1 ? '' : 's'} of your account in ${pages} page${pages === 1 ? '' : 's'}${where}`, {
    records: records.length,
    pages,
    ...(options.output ? { file: options.output } : {}),
  });
  return EXIT.OK;
}

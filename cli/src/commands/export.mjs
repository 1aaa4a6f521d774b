// expohub export comments|accounts [--cursor C] [--since T]: every row as NDJSON on stdout.
import { EXIT, log, logSummary, progress, UsageError, writeOut } from '../output.mjs';
import { apiClient } from './session.mjs';

/** How far before a run's start the next incremental run should begin (rows just written may reach the index late). */
const OVERLAP_MS = 5 * 60_000;
const KINDS = ['comments', 'accounts'];

export async function exportRows(args, options) {
  const kind = args[0];
  if (args.length !== 1 || !KINDS.includes(kind)) throw new UsageError('export needs what to export: expohub export comments|accounts [--since T] [--cursor C]');
  const { call } = await apiClient(options);
  const startedAt = Date.now();
  let cursor = options.cursor ?? '';
  let rows = 0;
  let pages = 0;
  const again = (c) => `expohub export ${kind}${options.since ? ` --since ${options.since}` : ''} --cursor ${c}`;
  for (;;) {
    const query = { limit: options.limit, ...(cursor ? { cursor } : {}), ...(options.since ? { since: options.since } : {}) };
    let data;
    try {
      data = kind === 'comments' ? await call('exports.comments', query) : await call('exports.accounts', query);
    } catch (error) {
      // Rows already written stay written; the cursor of the last page read continues after them.
      if (cursor && pages > 0) {
        log(`export ${kind} stopped after ${rows} rows in ${pages} pages; to resume after them run: ${again(cursor)}`);
        error.resumeCursor = cursor;
      }
      throw error;
    }
    pages += 1;
    const items = Array.isArray(data?.items) ? data.items : [];
    if (items.length > 0 && !(await writeOut(items.map((item) => `${JSON.stringify(item)}\n`).join('')))) return EXIT.OK;
    rows += items.length;
    cursor = typeof data?.next_cursor === 'string' ? data.next_cursor : '';
    progress({ tty: `${kind}: ${rows} rows, ${pages} pages`, plain: pages % 10 === 0 && cursor ? `progress: ${rows} ${kind} in ${pages} pages` : undefined, final: !cursor });
    if (!cursor) break;
  }
  const nextSince = new Date(startedAt - OVERLAP_MS).toISOString();
  logSummary(`exported ${rows} ${rows === 1 ? kind.slice(0, -1) : kind} in ${pages} page${pages === 1 ? '' : 's'}; for the rows added from now on run: expohub export ${kind} --since ${nextSince}`, {
    kind,
    rows,
    pages,
    next_since: nextSince,
  });
  return EXIT.OK;
}

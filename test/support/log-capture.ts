/** A structured line the functions wrote: a log line of lib/platform/logger.ts, or an EMF metrics line. */
export type Line = Record<string, unknown>;

export interface Capture {
  /** Every JSON line written to stdout or stderr since capture started, parsed. */
  lines: Line[];
  /** The same lines as written, to search for secrets in the exact text. */
  rawLines: string[];
  /** Gives the streams back; lines already captured stay. */
  restore(): void;
}

/**
 * Captures what Powertools Logger and Metrics write (their own Console on process.stdout and
 * process.stderr): JSON lines are kept, not printed; anything else goes through unchanged. The
 * functions run in-process (test/support/stack.ts), so a request's lines are in once its answer is.
 */
export function captureOutput(): Capture {
  const lines: Line[] = [];
  const rawLines: string[] = [];
  const restores: (() => void)[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      for (const line of text.split('\n').filter((l) => l.trim())) {
        const parsed = parseJson(line);
        if (parsed && typeof parsed === 'object') {
          lines.push(parsed as Line);
          rawLines.push(line);
        } else original(`${line}\n`);
      }
      (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof stream.write;
    restores.push(() => (stream.write = original as typeof stream.write));
  }
  return { lines, rawLines, restore: () => restores.splice(0).forEach((r) => r()) };
}

function parseJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The log lines among `lines` (not EMF). */
export const logLines = (lines: Line[]) => lines.filter((l) => !('_aws' in l));

/** The EMF lines among `lines` that publish metric `name`, with these dimension values if given. */
export function emfLines(lines: Line[], name: string, dimensions: Record<string, string> = {}): Line[] {
  return lines.filter((l) => {
    const aws = l._aws as { CloudWatchMetrics?: { Metrics: { Name: string }[] }[] } | undefined;
    if (!aws?.CloudWatchMetrics?.some((m) => m.Metrics.some((x) => x.Name === name))) return false;
    return Object.entries(dimensions).every(([k, v]) => l[k] === v);
  });
}

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

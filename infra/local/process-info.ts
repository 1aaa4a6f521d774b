import { readdirSync, readFileSync } from 'node:fs';

/**
 * What /proc says about the local runtime's processes (Linux only): the bench's capacity section
 * and the stop test find DynamoDB Local's JVM under the server and read its memory with these.
 */
const statFields = (pid: number | string): string[] => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After "pid (comm) ": state, ppid, ... (comm may hold spaces and parentheses).
  return [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ...stat.slice(stat.lastIndexOf(')') + 2).split(' ')];
};

/** The first child of `pid` whose command is `comm` (e.g. the `java` of DynamoDB Local). */
export function childProcessOf(pid: number, comm: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [name, , ppid] = statFields(entry);
      if (name === comm && Number(ppid) === pid) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Whether a process exists and is not a zombie. */
export function isRunning(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    return statFields(pid)[1] !== 'Z';
  } catch {
    return false;
  }
}

/** Resident memory in MB (VmRSS), 0 when the process is gone. */
export function residentMb(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Math.round(Number(kb) / 1024) : 0;
  } catch {
    return 0;
  }
}

/** CPU time (user + system) so far, in seconds (clock ticks of 1/100 s). */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = statFields(pid);
    return Math.round((Number(fields[12]) + Number(fields[13])) / 10) / 10;
  } catch {
    return 0;
  }
}

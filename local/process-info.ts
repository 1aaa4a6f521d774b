import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * What /proc says about the local runtime's processes (Linux only): the bench's capacity section
 * and the stop tests find DynamoDB Local's JVM under the server and read its memory with these, and a
 * start finds a DynamoDB Local left running on its data directory (dynamodb-local.ts).
 */
const statFields = (pid: number | string): string[] => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // After "pid (comm) ": state, ppid, pgrp, ... (comm may hold spaces and parentheses).
  return [stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ...stat.slice(stat.lastIndexOf(')') + 2).split(' ')];
};

export interface ProcessEntry {
  pid: number;
  ppid: number;
  /** Its process group. */
  pgid: number;
  comm: string;
  /** Its command line, argument by argument. */
  args: string[];
}

/** Every live process (zombies left out); none where there is no /proc. */
export function listProcesses(): ProcessEntry[] {
  if (!existsSync('/proc/self/stat')) return [];
  const out: ProcessEntry[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [comm, state, ppid, pgid] = statFields(entry);
      if (state === 'Z') continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').slice(0, -1);
      out.push({ pid: Number(entry), ppid: Number(ppid), pgid: Number(pgid), comm: comm!, args });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** The first child of `pid` whose command is `comm` (e.g. the `java` of DynamoDB Local). */
export function childProcessOf(pid: number, comm: string): number | undefined {
  return listProcesses().find((p) => p.comm === comm && p.ppid === pid)?.pid;
}

/** The live processes of a process group (DynamoDB Local's: the JVM and its watchdog). */
export function processGroup(pgid: number): ProcessEntry[] {
  return listProcesses().filter((p) => p.pgid === pgid);
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

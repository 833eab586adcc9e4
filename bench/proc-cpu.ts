// CPU time of processes on this machine, read from /proc (Linux): a process's own, and a
// PostgreSQL cluster's (its postmaster and every backend it forked).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const TICK_MS = 1000 / 100; // USER_HZ

/** User + system CPU ms of `pid` so far (0 once it is gone). */
export function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** CPU ms of the cluster in `dataDir`: the postmaster plus its live children. */
export function postgresCpuMs(dataDir: string): number {
  const postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  let total = cpuMsOf(postmaster);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      if (ppid === postmaster) total += cpuMsOf(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';

/**
 * CPU time of processes from Linux's /proc, so a run can say what one request costs in CPU
 * and not only how many requests fit in a second on a shared machine.
 */

/** Clock ticks per second of /proc/<pid>/stat's times; asked once, 100 on every usual Linux. */
const CLK_TCK = (() => {
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(value) && value > 0 ? value : 100;
  } catch {
    return 100;
  }
})();

interface ProcStat {
  pid: number;
  ppid: number;
  /** utime + stime, plus cutime + cstime: children it has reaped keep counting for it. */
  ticks: number;
}

async function readStat(pid: number | string): Promise<ProcStat | undefined> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone, or not a process
  }
  // Field 2 is the command in parentheses and may itself hold spaces or parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): field n of proc(5) is fields[n - 3].
  const at = (n: number) => Number(fields[n - 3]);
  return { pid: Number(pid), ppid: at(4), ticks: at(14) + at(15) + at(16) + at(17) };
}

/** Whether /proc/<pid> is the program we expect: a pid from another PID namespace is not. */
export async function commandMatches(pid: number, pattern: RegExp): Promise<boolean> {
  try {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8');
    return pattern.test(cmdline.replaceAll('\0', ' '));
  } catch {
    return false;
  }
}

/**
 * CPU milliseconds used so far by `rootPid` and every live descendant, found by scanning
 * every /proc/<pid>/stat for its parent. A descendant that exits in between moves into its
 * parent's cutime/cstime once reaped, so the difference of two readings stays right.
 */
export async function treeCpuMs(rootPid: number): Promise<number | undefined> {
  const names = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const stats = (await Promise.all(names.map(readStat))).filter((s): s is ProcStat => !!s);
  const root = stats.find((stat) => stat.pid === rootPid);
  if (!root) return undefined;
  const children = new Map<number, ProcStat[]>();
  for (const stat of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  let ticks = 0;
  const pending = [root];
  for (let stat = pending.pop(); stat; stat = pending.pop()) {
    ticks += stat.ticks;
    pending.push(...(children.get(stat.pid) ?? []));
  }
  return (ticks * 1000) / CLK_TCK;
}

/**
 * CPU milliseconds the whole machine has spent busy so far, over all cores (/proc/stat's
 * first line without idle and iowait): less the processes a run knows of, what others used.
 */
export async function machineCpuMs(): Promise<number> {
  const line = (await readFile('/proc/stat', 'utf8')).split('\n', 1)[0] ?? '';
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / CLK_TCK;
}

/** One process (tree) whose CPU a run reports: the target (service, baseline, Alertmanager), PostgreSQL or Redis. */
export interface CpuProbe {
  name: 'target' | 'postgres' | 'redis';
  pid: number;
}

/** CPU milliseconds per completed request, by process; `totalMs` adds them up. */
export interface CpuPerRequest {
  targetMs: number;
  postgresMs?: number;
  redisMs?: number;
  totalMs: number;
}

/**
 * Reads every probe now; the returned function reads them again and divides by the
 * requests completed in between. A probe whose process vanished is left out of both.
 */
export async function startCpuWindow(probes: CpuProbe[]) {
  const before = await Promise.all(probes.map((probe) => treeCpuMs(probe.pid)));
  return async (completed: number): Promise<CpuPerRequest | undefined> => {
    const after = await Promise.all(probes.map((probe) => treeCpuMs(probe.pid)));
    if (completed <= 0) return undefined;
    const perRequest: Partial<Record<CpuProbe['name'], number>> = {};
    probes.forEach((probe, i) => {
      const start = before[i];
      const end = after[i];
      if (start !== undefined && end !== undefined)
        perRequest[probe.name] = (end - start) / completed;
    });
    if (perRequest.target === undefined) return undefined;
    const parts = Object.values(perRequest);
    return {
      targetMs: perRequest.target,
      postgresMs: perRequest.postgres,
      redisMs: perRequest.redis,
      totalMs: parts.reduce((sum, ms) => sum + ms, 0),
    };
  };
}

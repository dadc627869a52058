import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import os from 'node:os';
import { promisify } from 'node:util';
import { machineCpuMs, treeCpuMs } from '../lib/proc-cpu.js';
import { sleep } from './flow.js';

const run = promisify(execFile);

/**
 * What the service process holds, seen from outside it: its open descriptors, and the
 * connections it has accepted per client address. Only the service's own view tells whether
 * a per-address cap held: an attacker sees a connection as open as soon as the kernel
 * completes it, before the service accepts (or refuses) it, and sees its close later.
 */
export class ServiceCensus {
  /** Most descriptors the service held at one sample. */
  peakDescriptors = 0;
  /** Most connections accepted from one address at one sample, and which address. */
  peakPerAddress = 0;
  peakAddress = '';
  /** Most connections waiting in the listen socket's accept queue, and its length. */
  peakAcceptQueue = 0;
  acceptQueueLength = 0;
  samples = 0;
  private stopped = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pid: number,
    private readonly port: number,
    private readonly everyMs = 1_000,
  ) {}

  start(): void {
    this.running = (async () => {
      while (!this.stopped) {
        await this.sample().catch(() => undefined);
        await sleep(this.everyMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async sample() {
    const fds = await readdir(`/proc/${this.pid}/fd`);
    this.peakDescriptors = Math.max(this.peakDescriptors, fds.length);
    // -p names the owning process: only accepted sockets have one, the backlog has none.
    const { stdout } = await run(
      'ss',
      ['-Htnp', 'state', 'established', `( sport = :${this.port} )`],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    // A full accept queue: new connections (the normal client's too) wait for SYN retries.
    const listen = await run('ss', ['-Hltn', `( sport = :${this.port} )`]);
    const [waiting = 0, length = 0] = (listen.stdout.trim().split(/\s+/).slice(1, 3) ?? []).map(
      Number,
    );
    this.peakAcceptQueue = Math.max(this.peakAcceptQueue, waiting);
    this.acceptQueueLength = length;
    const byAddress = new Map<string, number>();
    for (const line of stdout.split('\n')) {
      if (!line.includes(`pid=${this.pid},`)) continue;
      const peer = line.trim().split(/\s+/)[3] ?? '';
      const address = peer.slice(0, peer.lastIndexOf(':'));
      byAddress.set(address, (byAddress.get(address) ?? 0) + 1);
    }
    for (const [address, count] of byAddress) {
      if (count > this.peakPerAddress) {
        this.peakPerAddress = count;
        this.peakAddress = address;
      }
    }
    this.samples += 1;
  }
}

/** CPU seconds used in a window, and the seconds and cores it had. */
export interface CpuUse {
  service: number;
  bench: number;
  others: number;
  seconds: number;
  cores: number;
  /** Share of the time some task waited for a core (Linux PSI), when the kernel reports it. */
  cpuPressure?: number;
}

export const describeCpu = (u: CpuUse) =>
  `${u.service.toFixed(1)} s service, ${u.bench.toFixed(1)} s bench, ${u.others.toFixed(1)} s other processes, in ${u.seconds.toFixed(1)} s on ${u.cores} cores${u.cpuPressure === undefined ? '' : `, tasks waiting for a core ${(u.cpuPressure * 100).toFixed(0)}% of the time`}`;

/** Microseconds some task has waited for a core since boot (/proc/pressure/cpu), if known. */
function cpuStallUs(): number | undefined {
  try {
    const total = /^some .*total=(\d+)/m.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1];
    return total === undefined ? undefined : Number(total);
  } catch {
    return undefined;
  }
}

/**
 * CPU used between now and the returned function's call by the service, this process and
 * everything else on the machine: on shared cores, what others used shows in every latency.
 */
export async function cpuWindow(servicePid: number): Promise<() => Promise<CpuUse>> {
  const started = performance.now();
  const [service, machine] = [await treeCpuMs(servicePid), await machineCpuMs()];
  const bench = process.cpuUsage();
  const stall = cpuStallUs();
  return async () => {
    const serviceMs = ((await treeCpuMs(servicePid)) ?? 0) - (service ?? 0);
    const machineMs = (await machineCpuMs()) - machine;
    const benchUsage = process.cpuUsage(bench);
    const benchMs = (benchUsage.user + benchUsage.system) / 1000;
    const stallNow = cpuStallUs();
    const seconds = (performance.now() - started) / 1000;
    return {
      service: serviceMs / 1000,
      bench: benchMs / 1000,
      others: Math.max(0, machineMs - serviceMs - benchMs) / 1000,
      seconds,
      cores: os.availableParallelism(),
      ...(stall !== undefined && stallNow !== undefined
        ? { cpuPressure: (stallNow - stall) / 1e6 / seconds }
        : {}),
    };
  };
}

/**
 * This process's soft open-file limit (`ulimit -n`), from /proc: Node cannot raise it, so a
 * run that needs more descriptors says so before it starts instead of failing on EMFILE.
 */
export function openFileLimit(): number | undefined {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    return soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft) || undefined;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process in MiB, from /proc (undefined once it is gone). */
export function residentMiB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

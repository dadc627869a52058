import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { StatementTimes } from './statement-times.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Microseconds on the monotonic clock that both `process.hrtime` and V8's profiler use. */
export interface TimeWindow {
  startUs: number;
  endUs: number;
}

export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export interface SelfTime {
  name: string;
  selfMs: number;
  /** Share of the busy (non-idle) time. */
  selfPct: number;
}

export interface CpuProfileSummary {
  file: string;
  /** `measured phase` when the samples could be cut to it, else `whole process`. */
  scope: string;
  busyMs: number;
  idleMs: number;
  topFunctions: SelfTime[];
  /** Self time grouped by package (node_modules), service file, or Node internals. */
  byModule: SelfTime[];
  /** The SQL the service ran over its whole life (`statement-times.cjs`), when it wrote it. */
  statements?: StatementTimes;
}

function moduleOf(url: string, functionName: string): string {
  if (!url) return functionName || '(anonymous)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url;
  const ours = /\/(dist\/src\/.+)$/.exec(url);
  return ours ? ours[1]! : url.replace(/^file:\/\//, '');
}

function shortUrl(url: string): string {
  return url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/dist\/src\//, 'src/');
}

function top(map: Map<string, number>, busyMs: number, count: number): SelfTime[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, selfMs]) => ({
      name,
      selfMs: Math.round(selfMs),
      selfPct: Math.round((1000 * selfMs) / busyMs) / 10,
    }));
}

/**
 * Self time per function and per module; idle time is reported apart from the percentages.
 * With a window, only samples inside it count, so start-up (module loading) and shutdown
 * do not dilute the picture of the load.
 */
export async function summarizeCpuProfile(
  file: string,
  window?: TimeWindow,
  count = 15,
): Promise<CpuProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const cut =
    window !== undefined && window.startUs >= profile.startTime && window.endUs <= profile.endTime;
  const selfUs = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (cut && (at < window.startUs || at > window.endUs)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  let idleMs = 0;
  let busyMs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const ms = us / 1000;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      continue;
    }
    busyMs += ms;
    const where = frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'}${where}`;
    functions.set(name, (functions.get(name) ?? 0) + ms);
    const module = moduleOf(frame.url, frame.functionName);
    modules.set(module, (modules.get(module) ?? 0) + ms);
  }
  return {
    file,
    scope: cut ? 'measured phase' : 'whole process',
    busyMs: Math.round(busyMs),
    idleMs: Math.round(idleMs),
    topFunctions: top(functions, busyMs, count),
    byModule: top(modules, busyMs, count),
  };
}

/**
 * The main thread's profile for `pid` (`CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`);
 * loader-hook threads (tsx) write their own, under other thread ids.
 */
export async function findCpuProfile(dir: string, pid: number): Promise<string | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const main = names.filter((name) => name.includes(`.${pid}.0.`) && name.endsWith('.cpuprofile'));
  return main.length > 0 ? path.join(dir, main.sort()[0]!) : undefined;
}

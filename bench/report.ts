import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ComparisonOutcome, LatencyOutcome } from './lib/compare.js';
import type { LoadSettings } from './lib/load.js';
import type { RunOutcome } from './lib/run-spec.js';
import { REPO_ROOT } from './lib/service.js';
import { type StatementTimes, statementTable } from './lib/statement-times.js';
import type { StormVerdict } from './runs/storm-runs.js';

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  machine: { node: string; cpus: number; cpuModel: string; platform: string };
  settings: LoadSettings & { rounds: number };
  runs: RunOutcome[];
  comparisons: ComparisonOutcome[];
  latency: LatencyOutcome[];
  storm: StormVerdict[];
  notes: string[];
}

function table(header: string[], rows: string[][], rightAligned: Set<number>): string {
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (rightAligned.has(i) ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

const fixed = (value: number | undefined, digits: number) =>
  value === undefined || Number.isNaN(value) ? '-' : value.toFixed(digits);

function runRow(run: RunOutcome): string[] {
  const r = run.result;
  if (run.status === 'ok' && !r) {
    // Runs without a request load of their own (the idle service): their notes say it all.
    return [run.label, '-', '-', '-', '-', '-', '-', 'see notes'];
  }
  if (run.status !== 'ok' || !r) {
    const state = run.status === 'skipped' ? 'skipped' : '!!! FAILED';
    const reason = `${state}: ${(run.reason ?? '').split('\n')[0]}`;
    return [run.label, '-', '-', '-', '-', '-', '-', reason];
  }
  const bad = r.non2xx > 0 || r.errors > 0;
  const codes = Object.entries(r.statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, count]) => `${code}×${count}`);
  const problems = [
    ...(bad ? [`!!! NOT CLEAN${codes.length ? ` (${codes.join(', ')})` : ''}`] : []),
    ...(r.firstError ? [`first error: ${r.firstError}`] : []),
    ...(run.warmup && (run.warmup.non2xx > 0 || run.warmup.errors > 0)
      ? [`!!! warm-up had ${run.warmup.non2xx} non-2xx, ${run.warmup.errors} errors`]
      : []),
    ...(run.targetProblemLines ? [`!!! ${run.targetProblemLines} warn/error log lines`] : []),
  ];
  return [
    run.label,
    fixed(r.rps, 0),
    fixed(r.p50Ms, 2),
    fixed(r.p99Ms, 2),
    fixed(run.cpu?.totalMs, 3),
    String(r.non2xx),
    String(r.errors),
    problems.join('; '),
  ];
}

/** Each round's req/s, and where /proc was read, CPU ms per request by process. */
function printRounds(report: BenchReport): void {
  const measured = report.runs.filter((run) => run.rounds && run.rounds.length > 0);
  if (report.settings.rounds > 1 && measured.length > 0) {
    console.log('\nreq/s of each round (the row above is their median)\n');
    console.log(
      table(
        ['run', ...Array.from({ length: report.settings.rounds }, (_, i) => `round ${i + 1}`)],
        measured.map((run) => [run.label, ...(run.rounds ?? []).map((r) => fixed(r.rps, 0))]),
        new Set(Array.from({ length: report.settings.rounds }, (_, i) => i + 1)),
      ),
    );
  }
  const withCpu = report.runs.filter((run) => run.cpu);
  if (withCpu.length === 0) return;
  console.log('\nCPU ms per completed request, from /proc (median of the rounds, per column)\n');
  console.log(
    table(
      ['run', 'target', 'PostgreSQL', 'Redis', 'total'],
      withCpu.map((run) => [
        run.label,
        fixed(run.cpu?.targetMs, 3),
        fixed(run.cpu?.postgresMs, 3),
        fixed(run.cpu?.redisMs, 3),
        fixed(run.cpu?.totalMs, 3),
      ]),
      new Set([1, 2, 3, 4]),
    ),
  );
}

function printVerdicts(report: BenchReport): void {
  console.log('\nRatios: median of the per-round ratios (req/s, or CPU ms/req where marked)\n');
  const range = (c: ComparisonOutcome) =>
    c.min === undefined || c.max === undefined ? '-' : `${fixed(c.min, 2)}–${fixed(c.max, 2)}`;
  console.log(
    table(
      ['ratio', 'median', 'min–max', 'target', 'verdict'],
      report.comparisons.map((c) => [
        c.label,
        fixed(c.ratio, 2),
        range(c),
        c.target === undefined
          ? '-'
          : `${c.metric === 'cpu' || c.metric === 'serviceCpu' ? '≤' : '≥'} ${c.target}`,
        c.verdict,
      ]),
      new Set([1, 2]),
    ),
  );
  console.log('\nLatency targets: p99 (median of the rounds)\n');
  console.log(
    table(
      ['target', 'p99 ms', 'bound', 'verdict'],
      report.latency.map((l) => [
        l.label,
        fixed(l.p99, 2),
        `${l.strict ? '<' : '≤'} ${l.maxP99Ms} ms`,
        l.reason ? `${l.verdict} (${l.reason})` : l.verdict,
      ]),
      new Set([1]),
    ),
  );
  console.log('\nStorms, chat storms and idle: what each leaves behind\n');
  console.log(
    table(
      ['target', 'measured', 'bound', 'verdict'],
      report.storm.map((s) => [s.label, s.value, s.target, s.verdict]),
      new Set([1]),
    ),
  );
}

export function printReport(report: BenchReport): void {
  const { settings } = report;
  console.log(
    `\n=== Results: ${settings.connections} connections, ${settings.seconds} s measured after ${settings.warmupSeconds} s warm-up, ` +
      `median of ${settings.rounds} round(s), ${report.machine.cpus} CPUs shared with the load generator ===\n`,
  );
  console.log(
    table(
      ['run', 'req/s', 'p50 ms', 'p99 ms', 'CPU ms/req', 'non-2xx', 'errors', 'notes'],
      report.runs.map(runRow),
      new Set([1, 2, 3, 4, 5, 6]),
    ),
  );
  printRounds(report);
  printVerdicts(report);
  const withNotes = report.runs.filter((run) => run.notes.length > 0);
  if (withNotes.length > 0) console.log('\nRead back from the targets\n');
  for (const run of withNotes) console.log(`${run.label}:\n  ${run.notes.join('\n  ')}`);
  for (const run of report.runs) {
    if (!run.profile) continue;
    const p = run.profile;
    console.log(
      `\nCPU profile of ${run.label}, ${p.scope}: ${p.busyMs} ms busy, ${p.idleMs} ms idle (${p.file})`,
    );
    console.log(
      table(
        ['self time by module', 'ms', '%'],
        p.byModule.map((m) => [m.name, String(m.selfMs), m.selfPct.toFixed(1)]),
        new Set([1, 2]),
      ),
    );
    console.log('');
    console.log(
      table(
        ['self time by function', 'ms', '%'],
        p.topFunctions.map((f) => [f.name, String(f.selfMs), f.selfPct.toFixed(1)]),
        new Set([1, 2]),
      ),
    );
    if (p.statements) printStatements(p.statements);
  }
  if (report.notes.length > 0) console.log(`\n${report.notes.join('\n')}`);
}

/** What the profiled service's SQL cost it: per request when the count is known. */
function printStatements(times: StatementTimes): void {
  const scope = times.requests ? `${times.requests} requests` : 'whole process';
  const cost =
    times.totalBytes > 0
      ? `${(times.totalBytes / 1e6).toFixed(1)} MB sent to PostgreSQL`
      : `${times.totalMs.toFixed(0)} ms running on SQLite`;
  console.log(`\nSQL statements (${scope}): ${times.totalCalls} calls, ${cost}`);
  const { header, rows } = statementTable(times);
  console.log(table(header, rows, new Set([1, 2])));
}

export async function writeReport(report: BenchReport, file: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  // biome.json does not read .gitignore, so `npm run lint` sees bench/results too; Biome's
  // own layout keeps a finished bench from failing lint. Best effort: the data is written.
  spawnSync(path.join(REPO_ROOT, 'node_modules/.bin/biome'), ['format', '--write', file], {
    cwd: REPO_ROOT,
    stdio: 'ignore',
  });
}

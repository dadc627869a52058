import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { LoadSettings } from './lib/load.js';
import type { Comparison, RunOutcome } from './lib/run-spec.js';
import { REPO_ROOT } from './lib/service.js';

export interface ComparisonOutcome extends Comparison {
  ratio?: number;
  verdict: 'PASS' | 'FAIL' | 'info' | 'n/a';
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  machine: { node: string; cpus: number; cpuModel: string; platform: string };
  settings: LoadSettings;
  runs: RunOutcome[];
  comparisons: ComparisonOutcome[];
  notes: string[];
}

export function compare(runs: RunOutcome[], comparisons: Comparison[]): ComparisonOutcome[] {
  const rps = (id: string) => runs.find((run) => run.id === id && run.status === 'ok')?.result?.rps;
  return comparisons.map((comparison) => {
    const numerator = rps(comparison.numerator);
    const denominator = rps(comparison.denominator);
    if (numerator === undefined || !denominator) return { ...comparison, verdict: 'n/a' };
    const ratio = numerator / denominator;
    const verdict =
      comparison.target === undefined ? 'info' : ratio >= comparison.target ? 'PASS' : 'FAIL';
    return { ...comparison, ratio, verdict };
  });
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
  if (run.status !== 'ok' || !r) {
    const state = run.status === 'skipped' ? 'skipped' : '!!! FAILED';
    return [run.label, '-', '-', '-', '-', '-', `${state}: ${(run.reason ?? '').split('\n')[0]}`];
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
    String(r.non2xx),
    String(r.errors),
    problems.join('; '),
  ];
}

export function printReport(report: BenchReport): void {
  const { settings } = report;
  console.log(
    `\n=== Results: ${settings.connections} connections, ${settings.seconds} s measured after ${settings.warmupSeconds} s warm-up, ` +
      `${report.machine.cpus} CPUs shared with the load generator ===\n`,
  );
  console.log(
    table(
      ['run', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'notes'],
      report.runs.map(runRow),
      new Set([1, 2, 3, 4, 5]),
    ),
  );
  console.log('\nRatios of mean req/s\n');
  console.log(
    table(
      ['ratio', 'value', 'target', 'verdict'],
      report.comparisons.map((c) => [
        c.label,
        fixed(c.ratio, 2),
        c.target === undefined ? '-' : `≥ ${c.target.toFixed(1)}`,
        c.verdict,
      ]),
      new Set([1, 2]),
    ),
  );
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
  }
  if (report.notes.length > 0) console.log(`\n${report.notes.join('\n')}`);
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

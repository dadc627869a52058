/**
 * `npm run chaos`: the service under the faults an operator meets, on loopback only, with
 * private PostgreSQL and Redis instances on free ports (never the shared ones). Each scenario
 * prints what it checked and its figures; the run exits 1 when any check failed.
 * Environment: CHAOS_SHORT=1 (the sizes CI runs), CHAOS_ONLY=storm,races,… (a subset).
 */

import { type ChaosScale, passed, type ScenarioReport } from './chaos/report.js';
import { CHAOS_SCENARIOS } from './chaos/scenarios/index.js';
import { exitWith } from './lib/exit-with.js';
import { installExitHandlers, stopAll } from './lib/processes.js';

async function main(): Promise<number> {
  installExitHandlers(() => stopAll(2_000));
  const scale: ChaosScale = { short: process.env.CHAOS_SHORT === '1' };
  const only = (process.env.CHAOS_ONLY ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = only.filter((name) => !CHAOS_SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) {
    console.error(
      `CHAOS_ONLY names no scenario: ${unknown.join(', ')}; known: ${CHAOS_SCENARIOS.map((s) => s.name).join(', ')}`,
    );
    return 2;
  }
  const chosen = CHAOS_SCENARIOS.filter((s) => only.length === 0 || only.includes(s.name));
  console.log(
    `chaos: ${chosen.length} scenarios, ${scale.short ? 'short' : 'full'} sizes, ${new Date().toISOString()}`,
  );
  const started = Date.now();
  const reports: ScenarioReport[] = [];
  for (const scenario of chosen) {
    const scenarioStarted = Date.now();
    const report = await scenario.run(scale);
    await stopAll(2_000);
    console.log(`  (${((Date.now() - scenarioStarted) / 1000).toFixed(1)} s)`);
    reports.push(report);
  }
  console.log(`\n== summary (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  for (const report of reports) {
    const failed = report.checks.filter((check) => !check.ok).length;
    const verdict = passed(report)
      ? `ok, ${report.checks.length} checks`
      : report.crashed
        ? `CRASHED: ${report.crashed}`
        : `FAILED ${failed} of ${report.checks.length} checks`;
    console.log(`  ${report.name.padEnd(34)} ${verdict}`);
  }
  return reports.every(passed) ? 0 : 1;
}

exitWith('chaos', main);

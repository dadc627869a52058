import {
  findCpuProfile,
  monotonicUs,
  summarizeCpuProfile,
  type TimeWindow,
} from './cpu-profile.js';
import { type LoadResult, type LoadSettings, measureLoad, sendSample } from './load.js';
import { type CpuProbe, startCpuWindow } from './proc-cpu.js';
import type { RunOutcome, RunSpec } from './run-spec.js';
import { readStatementTimes } from './statement-times.js';
import type { Target } from './target.js';

const SAMPLE_SHOWN = 300;

function stalled(phase: string, result: LoadResult): string | undefined {
  if (result.completed > 0) return undefined;
  const error = result.firstError ? ` (first error: ${result.firstError})` : '';
  return `the target answered no request during the ${phase}: it stalled or is unreachable${error}`;
}

/** Stops a run's target, noting warn/error lines while stopping and an unclean exit. */
export async function stopTarget(target: Target, outcome: RunOutcome): Promise<void> {
  const before = target.child.problemLines();
  const exit = await target.stop();
  outcome.targetProblemLines ??= before;
  const atShutdown = target.child.problemLines() - before;
  if (atShutdown > 0) outcome.notes.push(`!!! ${atShutdown} warn/error log lines while stopping`);
  if (exit !== '0') outcome.notes.push(`!!! target exited with ${exit} when asked to stop`);
}

/**
 * Start, prove one request succeeds, warm up, measure, stop. A sample that is not 200 stops
 * the run: load that only produces 401s or 422s measures the error path, not the feature.
 * `serverProbes` (PostgreSQL, Redis) are read with the target around the measured window.
 */
export async function executeRun(
  spec: RunSpec,
  settings: LoadSettings,
  serverProbes: CpuProbe[] = [],
): Promise<RunOutcome> {
  const outcome: RunOutcome = { id: spec.id, label: spec.label, status: 'failed', notes: [] };
  if (spec.skip) {
    console.log(`\n— ${spec.label}: SKIPPED (${spec.skip})`);
    return { ...outcome, status: 'skipped', reason: spec.skip };
  }
  console.log(`\n— ${spec.label}`);
  let target: Target | undefined;
  let measuredWindow: TimeWindow | undefined;
  try {
    target = await spec.start();
    outcome.readyVia = target.readyVia;
    console.log(`  ready at ${target.baseUrl} (via ${target.readyVia}), pid ${target.child.pid}`);
    const sample = await sendSample(target.baseUrl, spec.plan);
    outcome.sample = { status: sample.status, body: sample.body.slice(0, SAMPLE_SHOWN) };
    console.log(
      `  sample ${spec.plan.method} ${spec.plan.path} → ${sample.status} ${outcome.sample.body}`,
    );
    const problem =
      sample.status !== 200
        ? `sample request answered ${sample.status}, expected 200`
        : spec.checkSample?.(sample);
    if (problem) throw new Error(problem);
    const { connections, warmupSeconds, seconds } = settings;
    console.log(`  ${connections} connections: ${warmupSeconds} s warm-up, ${seconds} s measured`);
    outcome.warmup = await measureLoad(target.baseUrl, spec.plan, connections, warmupSeconds);
    const warmupStall = stalled('warm-up', outcome.warmup);
    if (warmupStall) throw new Error(warmupStall);
    const cpuWindow = await startCpuWindow([
      { name: 'target', pid: target.child.pid },
      ...serverProbes,
    ]);
    const startUs = monotonicUs();
    outcome.result = await measureLoad(target.baseUrl, spec.plan, connections, seconds);
    measuredWindow = { startUs, endUs: monotonicUs() };
    outcome.cpu = await cpuWindow(outcome.result.completed);
    const measuredStall = stalled('measurement', outcome.result);
    if (measuredStall) throw new Error(measuredStall);
    outcome.targetProblemLines = target.child.problemLines();
    if (spec.afterLoad) {
      try {
        outcome.notes.push(...(await spec.afterLoad(target)));
      } catch (error) {
        outcome.notes.push(`!!! could not read back from the target: ${(error as Error).message}`);
      }
    }
    outcome.status = 'ok';
  } catch (error) {
    outcome.reason = (error as Error).message;
    console.error(`  !!! ${spec.label} FAILED: ${outcome.reason}`);
  } finally {
    if (target) await stopTarget(target, outcome);
  }
  if (target && spec.cpuProfileDir) {
    const file = await findCpuProfile(spec.cpuProfileDir, target.child.pid);
    if (file) {
      outcome.profile = await summarizeCpuProfile(file, measuredWindow);
      // The sample, the warm-up and the measured load: the whole life the preload counted.
      const requests = (outcome.warmup?.completed ?? 0) + (outcome.result?.completed ?? 0) + 1;
      outcome.profile.statements = await readStatementTimes(
        spec.cpuProfileDir,
        target.child.pid,
        requests,
      );
    } else outcome.notes.push(`no CPU profile found in ${spec.cpuProfileDir}`);
  }
  for (const note of outcome.notes) console.log(`  ${note}`);
  return outcome;
}

import { findCpuProfile, summarizeCpuProfile } from '../lib/cpu-profile.js';
import { distributedNames } from '../lib/distributed.js';
import type { LoadSettings } from '../lib/load.js';
import { type CpuProbe, startCpuWindow } from '../lib/proc-cpu.js';
import type { LatencyTarget, RunOutcome } from '../lib/run-spec.js';
import { type StoreMode, startService } from '../lib/service.js';
import { fanOutRound, type RoundResult, startPacedModel } from '../lib/sse-fanout.js';
import type { BenchContext } from './intake-runs.js';

/** bench/README.md, Ratios and targets: 500 clients on one task, p99 under 50 ms embedded and on Redis. */
const CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 500);
const TARGET_P99_MS = 50;
/** Experts answer one every 25 ms after the clients connect, so events arrive spread out. */
const EXPERT_PACE_MS = 25;

/**
 * A run that brings its own load: SSE clients instead of autocannon. `execute` returns the
 * same RunOutcome as the autocannon runs; its req/s column is deliveries per second, its
 * latencies are the publish → receipt delays of the live events.
 */
export interface SseRunSpec {
  id: string;
  label: string;
  skip?: string;
  /** `serverProbes`: PostgreSQL and Redis, read with the service around the measured tasks. */
  execute(settings: LoadSettings, serverProbes?: CpuProbe[]): Promise<RunOutcome>;
}

export const sseLatencyTargets: LatencyTarget[] = (['embedded', 'distributed'] as const).map(
  (mode) => ({
    label: `SSE publish → receipt p99 (${mode})`,
    run: `sse-${mode}`,
    maxP99Ms: TARGET_P99_MS,
    strict: true,
  }),
);

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

/** Which events are slow: the ones in a burst, or the ones next to the streams ending. */
function bySeqP99(rounds: RoundResult[]): string {
  const all = new Map<number, number[]>();
  for (const round of rounds) {
    for (const [seq, delays] of round.delaysBySeq)
      all.set(seq, [...(all.get(seq) ?? []), ...delays]);
  }
  return [...all.entries()]
    .sort(([a], [b]) => a - b)
    .map(
      ([seq, delays]) =>
        `#${seq} ${percentile(
          delays.sort((a, b) => a - b),
          0.99,
        ).toFixed(1)} ms`,
    )
    .join(', ');
}

function summarize(rounds: RoundResult[], notes: string[]): RunOutcome['result'] {
  const delays = rounds.flatMap((round) => round.delaysMs).sort((a, b) => a - b);
  const clients = rounds.reduce((sum, round) => sum + round.clients, 0);
  const complete = rounds.reduce((sum, round) => sum + round.complete, 0);
  const durationS = rounds.reduce((sum, round) => sum + round.durationMs, 0) / 1000;
  const deliveries = rounds.reduce((sum, round) => sum + round.events * round.complete, 0);
  const p99 = percentile(delays, 0.99);
  notes.push(
    `${CLIENTS} clients × ${rounds.length} tasks of ${rounds[0]?.events ?? 0} events: ${complete}/${clients} streams received every event in order${complete === clients ? '' : ' !!!'}`,
    `publish → receipt over ${delays.length} live deliveries: p50 ${percentile(delays, 0.5).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${(delays.at(-1) ?? Number.NaN).toFixed(1)} ms; target p99 < ${TARGET_P99_MS} ms: ${p99 < TARGET_P99_MS ? 'PASS' : 'FAIL'}`,
    'req/s above is event deliveries per second while the experts answered',
    `p99 by event number: ${bySeqP99(rounds)}`,
    `${CLIENTS} streams connected, each with its status and replay, in ${percentile(
      rounds.map((round) => round.connectMs).sort((a, b) => a - b),
      0.5,
    ).toFixed(0)} ms (median of the tasks)`,
  );
  return {
    rps: durationS > 0 ? deliveries / durationS : 0,
    p50Ms: percentile(delays, 0.5),
    p99Ms: p99,
    completed: delays.length,
    non2xx: clients - complete,
    errors: rounds.reduce((sum, round) => sum + round.errors, 0),
    timeouts: 0,
    statusCodes: { '200': clients },
    firstError: rounds.find((round) => round.firstError)?.firstError,
    durationS,
  };
}

/** SSE fan-out: one task at a time, CLIENTS streams on it, repeated for BENCH_SECONDS. */
export function sseRuns(ctx: BenchContext): SseRunSpec[] {
  return (['embedded', 'distributed'] as const).map((modeKey) => {
    const id = `sse-${modeKey}`;
    const label = `SSE fan-out ${CLIENTS} clients, ${modeKey === 'embedded' ? 'embedded SQLite' : 'PostgreSQL + Redis'}`;
    return {
      id,
      label,
      skip: modeKey === 'distributed' ? ctx.distributedUnavailable : undefined,
      async execute(settings, serverProbes = []) {
        const outcome: RunOutcome = { id, label, status: 'failed', notes: [] };
        if (this.skip) {
          console.log(`\n— ${label}: SKIPPED (${this.skip})`);
          return { ...outcome, status: 'skipped', reason: this.skip };
        }
        console.log(`\n— ${label}`);
        const model = await startPacedModel(EXPERT_PACE_MS);
        const mode: StoreMode =
          modeKey === 'embedded'
            ? { kind: 'embedded' }
            : { kind: 'distributed', ...distributedNames(ctx.tag, id) };
        const target = await startService({
          mode,
          workDir: await ctx.workDir(id),
          secret: ctx.secret,
          cpuProfileDir: ctx.cpuProfileDir(id),
          env: { ANALYZER: 'openai', LLM_BASE_URL: model.url, LLM_MODEL: 'bench-model' },
        }).catch(async (error) => {
          await model.close();
          throw error;
        });
        try {
          outcome.readyVia = target.readyVia;
          console.log(`  ready at ${target.baseUrl}, pid ${target.child.pid}`);
          await fanOutRound(target.baseUrl, model, CLIENTS); // warm-up, not counted
          const rounds: RoundResult[] = [];
          const cpuWindow = await startCpuWindow([
            { name: 'target', pid: target.child.pid },
            ...serverProbes,
          ]);
          const until = Date.now() + settings.seconds * 1000;
          do rounds.push(await fanOutRound(target.baseUrl, model, CLIENTS));
          while (Date.now() < until);
          outcome.result = summarize(rounds, outcome.notes);
          // Per delivered event; the paced model process is not counted.
          outcome.cpu = await cpuWindow(outcome.result?.completed ?? 0);
          outcome.targetProblemLines = target.child.problemLines();
          outcome.status = 'ok';
        } catch (error) {
          outcome.reason = (error as Error).message;
          console.error(`  !!! ${label} FAILED: ${outcome.reason}`);
        } finally {
          const exit = await target.stop();
          if (exit !== '0') outcome.notes.push(`!!! target exited with ${exit} when asked to stop`);
          await model.close();
        }
        const profileDir = ctx.cpuProfileDir(id);
        const profile = profileDir && (await findCpuProfile(profileDir, target.child.pid));
        if (profile) outcome.profile = await summarizeCpuProfile(profile);
        for (const note of outcome.notes) console.log(`  ${note}`);
        return outcome;
      },
    };
  });
}

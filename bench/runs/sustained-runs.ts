import { setTimeout as sleep } from 'node:timers/promises';
import { signalRequests } from '../lib/bodies.js';
import type { LoadPlan, LoadSettings } from '../lib/load.js';
import { counterByLabel, total } from '../lib/metrics.js';
import type { RunOutcome } from '../lib/run-spec.js';
import {
  type ModeKey,
  modeLabel,
  type OwnLoadRunSpec,
  withOwnService,
} from '../lib/sustained-harness.js';
import { type CannonResult, cannon } from '../lib/sustained-load.js';
import type { BenchContext } from './intake-runs.js';

/**
 * What the signal webhook takes indefinitely, not in a burst: the closed-loop runs measure
 * how fast requests are answered, while the in-process consumer may fall behind and the
 * webhook then answers 503 once 10,000 signals wait. Here a rate passes when every answer
 * is 2xx and the consumer's backlog is empty again within DRAIN_LIMIT_MS of the step's end.
 */
const SIGNALS_PATH = '/api/v1/webhooks/signals';
/** A search of ~5 steps must stay under a minute per run on a shared 2-core machine. */
const MAX_STEP_SECONDS = 5;
const MAX_PROBE_SECONDS = 3;
const MAX_STEPS = Number(process.env.BENCH_SUSTAINED_STEPS ?? 5);
const DRAIN_LIMIT_MS = 2_000;
/** A failed step leaves a backlog; the next step must start from an empty one. */
const SETTLE_LIMIT_MS = 30_000;
const POLL_MS = 100;
/** Stop once the passing and the failing rate are this close (relative to the failing one). */
const CLOSE_ENOUGH = 0.05;
/**
 * Below this share of the asked rate the HTTP side, not the consumer, is the limit: the
 * paced sender turns closed-loop and the step says nothing about that rate.
 */
const MIN_ACHIEVED = 0.9;
/** The first rate tried, as a share of the lower of the probe's two throughputs. */
const FIRST_GUESS = 0.9;

interface Step {
  rate: number;
  result: CannonResult;
  /** Time from the step's end to an empty backlog; undefined when it took over DRAIN_LIMIT_MS. */
  drainMs?: number;
  problems: string[];
}

/** Signals accepted by the webhook and not yet handled by this process's consumer. */
async function backlog(baseUrl: string): Promise<{ produced: number; consumed: number }> {
  const produced = total(await counterByLabel(baseUrl, 'signals_produced_total', 'severity'));
  const consumed = total(await counterByLabel(baseUrl, 'signals_consumed_total', 'outcome'));
  return { produced, consumed };
}

/** Milliseconds until produced = consumed, or undefined once `limitMs` has passed. */
async function waitForEmpty(baseUrl: string, limitMs: number): Promise<number | undefined> {
  const start = Date.now();
  for (;;) {
    const { produced, consumed } = await backlog(baseUrl);
    const elapsed = Date.now() - start;
    if (produced - consumed <= 0) return elapsed;
    if (elapsed >= limitMs) return undefined;
    await sleep(POLL_MS);
  }
}

async function runStep(
  baseUrl: string,
  plan: LoadPlan,
  rate: number,
  seconds: number,
  connections: number,
): Promise<Step> {
  const result = await cannon(baseUrl, plan, {
    connections: Math.min(connections, rate * seconds),
    amount: rate * seconds,
    overallRate: rate,
  });
  const drainMs = await waitForEmpty(baseUrl, DRAIN_LIMIT_MS);
  const problems: string[] = [];
  if (result.non2xx > 0)
    problems.push(`${result.non2xx} non-2xx (${JSON.stringify(result.statusCodes)})`);
  if (result.errors + result.timeouts > 0)
    problems.push(`${result.errors} errors, ${result.timeouts} timeouts`);
  if (drainMs === undefined) problems.push(`backlog not empty ${DRAIN_LIMIT_MS / 1000} s after`);
  if (result.rps < rate * MIN_ACHIEVED) problems.push('sender could not keep the rate');
  return { rate, result, drainMs, problems };
}

function describe(step: Step): string {
  const drain = step.drainMs === undefined ? `> ${DRAIN_LIMIT_MS} ms` : `${step.drainMs} ms`;
  const verdict = step.problems.length === 0 ? 'pass' : `FAIL: ${step.problems.join('; ')}`;
  return `step ${step.rate} req/s → ${step.result.rps.toFixed(0)} achieved, p99 ${step.result.p99Ms.toFixed(1)} ms, non-2xx ${step.result.non2xx}, drained in ${drain}: ${verdict}`;
}

/**
 * A closed-loop warm-up, a closed-loop probe, then a bisection between the best passing and the
 * lowest failing rate. The upper bound starts at the probe's answered req/s: a paced sender
 * cannot beat an unpaced one. The first guess also weighs how fast the consumer kept up.
 */
async function search(
  baseUrl: string,
  plan: LoadPlan,
  settings: LoadSettings,
  notes: string[],
): Promise<Step | undefined> {
  const { connections } = settings;
  const stepSeconds = Math.min(settings.seconds, MAX_STEP_SECONDS);
  const probeSeconds = Math.max(1, Math.min(settings.warmupSeconds, MAX_PROBE_SECONDS));
  console.log(
    `  warm-up and probe ${probeSeconds} s each, then up to ${MAX_STEPS} paced steps of ${stepSeconds} s…`,
  );
  // The probe sets the ceiling of every step, so it must not pay the JIT's first seconds.
  await cannon(baseUrl, plan, { connections, seconds: probeSeconds });
  if ((await waitForEmpty(baseUrl, SETTLE_LIMIT_MS)) === undefined)
    throw new Error(`the warm-up's backlog did not drain within ${SETTLE_LIMIT_MS / 1000} s`);
  const before = await backlog(baseUrl);
  const probe = await cannon(baseUrl, plan, { connections, seconds: probeSeconds });
  const settled = await waitForEmpty(baseUrl, SETTLE_LIMIT_MS);
  if (settled === undefined)
    throw new Error(`the probe's backlog did not drain within ${SETTLE_LIMIT_MS / 1000} s`);
  const after = await backlog(baseUrl);
  // Everything the probe produced was consumed between its start and the empty backlog.
  const consumerRps =
    (after.consumed - before.consumed) / ((Date.now() - probe.startedAt) / 1000 || 1);
  notes.push(
    `probe (closed loop, ${connections} connections, ${probeSeconds} s): ${probe.rps.toFixed(0)} req/s answered, non-2xx ${probe.non2xx}; consumer kept ${consumerRps.toFixed(0)}/s; backlog empty ${settled} ms after`,
  );
  let hi = Math.max(1, Math.round(probe.rps));
  // Until a step fails, the upper bound is the probe's ceiling, not a rate seen failing.
  let hiTried = false;
  let lo = 0;
  let best: Step | undefined;
  let rate = Math.max(1, Math.round(FIRST_GUESS * Math.min(probe.rps, consumerRps)));
  for (let i = 0; i < MAX_STEPS; i++) {
    const step = await runStep(baseUrl, plan, rate, stepSeconds, connections);
    notes.push(describe(step));
    if (step.problems.length === 0) {
      lo = rate;
      if (!best || step.result.rps > best.result.rps) best = step;
    } else {
      hi = rate;
      hiTried = true;
      const empty = await waitForEmpty(baseUrl, SETTLE_LIMIT_MS);
      if (empty === undefined) {
        notes.push(`!!! backlog still not empty ${SETTLE_LIMIT_MS / 1000} s later: search ended`);
        break;
      }
    }
    if (hi <= lo || (hi - lo) / hi < CLOSE_ENOUGH) break;
    rate = Math.round((lo + hi) / 2);
    if (rate <= lo || rate >= hi) break;
  }
  notes.push(
    "paced by autocannon per second: each second's quota is sent at its start, so step latencies are those of 1 s bursts",
    `sustained: ${best ? best.result.rps.toFixed(0) : 0} req/s (highest passing rate ${lo} req/s, ${hiTried ? 'lowest failing' : 'closed-loop ceiling'} ${hi} req/s; ${stepSeconds} s steps, pass = all 2xx, backlog empty ≤ ${DRAIN_LIMIT_MS / 1000} s after)`,
  );
  return best;
}

/** The signal webhook's sustained rate with the in-process consumer, embedded and distributed. */
export function sustainedSignalRuns(ctx: BenchContext): OwnLoadRunSpec[] {
  return (['embedded', 'distributed'] as ModeKey[]).map((modeKey) => {
    const id = `signals-sustained-${modeKey}`;
    const label = `signals sustained (paced, consumer keeps up), ${modeLabel(modeKey)}`;
    const skip = modeKey === 'distributed' ? ctx.distributedUnavailable : undefined;
    return {
      id,
      label,
      skip,
      execute(settings: LoadSettings): Promise<RunOutcome> {
        const outcome: RunOutcome = { id, label, status: 'failed', notes: [] };
        return withOwnService(ctx, { id, label, skip, modeKey }, outcome, async (target) => {
          const plan: LoadPlan = {
            method: 'POST',
            path: SIGNALS_PATH,
            source: { kind: 'rotate', requests: signalRequests(ctx.secret) },
          };
          const best = await search(target.baseUrl, plan, settings, outcome.notes);
          if (best) {
            const { startedAt: _s, lastAnswerAt: _l, ...result } = best.result;
            outcome.result = result;
          } else {
            // A measurement, not a broken run: no rate tried passed, so the sustained rate is 0.
            outcome.notes.push('!!! no rate tried passed: sustained rate reported as 0');
            outcome.result = {
              rps: 0,
              p50Ms: Number.NaN,
              p99Ms: Number.NaN,
              completed: 0,
              non2xx: 0,
              errors: 0,
              timeouts: 0,
              statusCodes: {},
              durationS: 0,
            };
          }
        });
      },
    };
  });
}

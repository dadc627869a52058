import { setTimeout as sleep } from 'node:timers/promises';
import { newAlertSequence } from '../lib/bodies.js';
import type { LoadPlan, LoadSettings } from '../lib/load.js';
import { sendSample } from '../lib/load.js';
import { type CpuProbe, treeCpuMs } from '../lib/proc-cpu.js';
import type { RunOutcome } from '../lib/run-spec.js';
import { type DrainCounts, isDrained, openDrainReader } from '../lib/storm-drain.js';
import {
  type ModeKey,
  modeLabel,
  type OwnLoadRunSpec,
  withOwnService,
} from '../lib/sustained-harness.js';
import { cannon } from '../lib/sustained-load.js';
import type { BenchContext } from './intake-runs.js';

/**
 * An incident storm: N distinct alerts, each opening its own incident, as fast as the
 * connections allow. Intake answering fast is half of it; each incident also owes a card and
 * a repair evaluation through the outbox, and those must catch up within seconds rather
 * than trail the storm for hours. Not paced and not warmed up: a storm arrives cold.
 */
const ALERTS_PATH = '/api/v1/webhooks/alerts';
const STORM_ALERTS = stormAlerts();
const POLL_MS = 250;
const GIVE_UP_MS = 120_000;
/** bench/README.md, Ratios and targets: drained within 5 s (embedded) and 10 s (distributed) of the last answer. */
export const STORM_DRAIN_TARGET_S: Record<ModeKey, number> = { embedded: 5, distributed: 10 };
/** bench/README.md, Ratios and targets: all-in CPU per new incident, the service's and its PostgreSQL's and Redis's. */
export const STORM_ALL_IN_TARGET_MS: Record<ModeKey, number> = { embedded: 0.5, distributed: 1.5 };
const QUIET_MS_PER_S = 40;
const QUIET_GIVE_UP_MS = 120_000;

function stormAlerts(): number {
  const raw = process.env.BENCH_STORM_ALERTS;
  const value = raw ? Number(raw) : 10_000;
  if (!Number.isInteger(value) || value < 2)
    throw new Error(`BENCH_STORM_ALERTS must be an integer ≥ 2, got "${raw}"`);
  return value;
}

/** A storm run's outcome, with what its verdict needs in fields rather than in prose. */
export interface StormOutcome extends RunOutcome {
  /** From the last answer to an outbox with nothing open; undefined when not drained in time. */
  drainSeconds?: number;
  alertsSent?: number;
  incidentsCreated?: number;
  /** CPU of the service (and PostgreSQL and Redis) per incident, until it was quiet again. */
  allInCpuMsPerIncident?: number;
  allInParts?: Record<string, number>;
}

const describeCounts = (c: DrainCounts) =>
  `${c.incidents} incidents, ${c.pending} outbox rows open, ${c.gaveUp} given up, ${c.followUpsOpen} incident follow-ups not done`;

async function measureStorm(
  ctx: BenchContext,
  settings: LoadSettings,
  outcome: StormOutcome,
  baseUrl: string,
  store: Parameters<typeof openDrainReader>[0],
  probes: CpuProbe[],
): Promise<void> {
  const n = STORM_ALERTS;
  const cpuBefore = await cpuOf(probes);
  console.log(`  signing ${n} distinct alerts…`);
  const sequence = newAlertSequence(ctx.secret, n);
  const plan: LoadPlan = {
    method: 'POST',
    path: ALERTS_PATH,
    source: { kind: 'sequence', next: () => sequence.next() },
  };
  // Alert #0 alone first: a 401 or 422 must stop the run before 10,000 of them.
  const sample = await sendSample(baseUrl, plan);
  outcome.sample = { status: sample.status, body: sample.body.slice(0, 300) };
  if (sample.status !== 200 || !sample.body.includes('"created"'))
    throw new Error(`sample alert answered ${sample.status} ${outcome.sample.body}`);
  // autocannon refuses more connections than requests.
  const connections = Math.min(settings.connections, n - 1);
  console.log(`  storm: ${n - 1} more alerts over ${connections} connections`);
  const storm = await cannon(baseUrl, plan, { connections, amount: n - 1 });
  const { startedAt, lastAnswerAt, ...result } = storm;
  outcome.result = result;
  outcome.alertsSent = sequence.used();

  const reader = await openDrainReader(store);
  let counts: DrainCounts;
  let drainedAt: number | undefined;
  try {
    for (;;) {
      counts = await reader.counts();
      if (isDrained(counts)) {
        drainedAt = Date.now();
        break;
      }
      if (Date.now() - lastAnswerAt >= GIVE_UP_MS) break;
      await sleep(POLL_MS);
    }
  } finally {
    await reader.close();
  }
  outcome.incidentsCreated = counts.incidents;
  if (drainedAt !== undefined) await measureAllIn(outcome, probes, cpuBefore, n);
  const seconds = (lastAnswerAt - startedAt) / 1000;
  const notes = outcome.notes;
  notes.push(
    `storm: ${outcome.alertsSent} alerts, ${counts.incidents} incidents created in ${seconds.toFixed(1)} s (${result.rps.toFixed(0)}/s), p99 ${result.p99Ms.toFixed(1)} ms, non-2xx ${result.non2xx}`,
  );
  if (counts.incidents !== n)
    notes.push(`!!! expected ${n} incidents, the database holds ${counts.incidents}`);
  if (outcome.alertsSent !== n)
    notes.push(`!!! ${outcome.alertsSent} alert bodies sent, expected ${n}`);
  if (drainedAt !== undefined) {
    outcome.drainSeconds = Math.max(0, (drainedAt - lastAnswerAt) / 1000);
    const bound = STORM_DRAIN_TARGET_S[modeOf(outcome.id)];
    const verdict = outcome.drainSeconds <= bound ? 'PASS' : 'FAIL';
    notes.push(
      `follow-up drained ${outcome.drainSeconds.toFixed(2)} s after the last answer (target ≤ ${bound} s: ${verdict}; polled every ${POLL_MS} ms)`,
    );
  } else {
    notes.push(
      `!!! follow-up not drained ${GIVE_UP_MS / 1000} s after the last answer: ${describeCounts(counts)}`,
    );
  }
}

/** CPU milliseconds used so far by each probe's process tree; a vanished one reads 0. */
async function cpuOf(probes: CpuProbe[]): Promise<number[]> {
  return Promise.all(probes.map(async (probe) => (await treeCpuMs(probe.pid)) ?? 0));
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/**
 * All-in CPU per incident: everything the service (and PostgreSQL and Redis) spent from before
 * the storm until the first second that costs under QUIET_MS_PER_S of CPU in all, divided by
 * the incidents. The drain poll above reads PostgreSQL too; it is small beside a storm.
 */
async function measureAllIn(
  outcome: StormOutcome,
  probes: CpuProbe[],
  before: number[],
  incidents: number,
): Promise<void> {
  let last = await cpuOf(probes);
  const deadline = Date.now() + QUIET_GIVE_UP_MS;
  for (;;) {
    await sleep(1_000);
    const now = await cpuOf(probes);
    if (sum(now) - sum(last) < QUIET_MS_PER_S) break;
    last = now;
    if (Date.now() > deadline) {
      outcome.notes.push(`!!! not quiet ${QUIET_GIVE_UP_MS / 1000} s after draining`);
      return;
    }
  }
  const parts: Record<string, number> = {};
  probes.forEach((probe, i) => {
    parts[probe.name] = (last[i]! - before[i]!) / incidents;
  });
  outcome.allInParts = parts;
  outcome.allInCpuMsPerIncident = sum(Object.values(parts));
  const detail = Object.entries(parts)
    .map(([name, ms]) => `${name === 'target' ? 'service' : name} ${ms.toFixed(3)}`)
    .join(' + ');
  outcome.notes.push(
    `all-in CPU per new incident: ${outcome.allInCpuMsPerIncident.toFixed(3)} ms (${detail}), until a second under ${QUIET_MS_PER_S} ms of CPU`,
  );
}

/** The incident storm, embedded and distributed; BENCH_STORM_ALERTS sets its size. */
export function stormRuns(ctx: BenchContext): OwnLoadRunSpec<StormOutcome>[] {
  return (['embedded', 'distributed'] as ModeKey[]).map((modeKey) => {
    const id = `storm-${modeKey}`;
    const label = `storm of ${STORM_ALERTS} new incidents, ${modeLabel(modeKey)}`;
    const skip = modeKey === 'distributed' ? ctx.distributedUnavailable : undefined;
    return {
      id,
      label,
      skip,
      execute(settings: LoadSettings, serverProbes: CpuProbe[] = []): Promise<StormOutcome> {
        const outcome: StormOutcome = { id, label, status: 'failed', notes: [] };
        return withOwnService(ctx, { id, label, skip, modeKey }, outcome, (target, store) =>
          measureStorm(ctx, settings, outcome, target.baseUrl, store, [
            { name: 'target', pid: target.child.pid },
            ...serverProbes,
          ]),
        );
      },
    };
  });
}

export interface StormVerdict {
  label: string;
  /** e.g. `12.3 s`, `not drained in 120 s`, `skipped` */
  value: string;
  target: string;
  verdict: 'PASS' | 'FAIL' | 'n/a';
}

const modeOf = (runId: string) => runId.slice('storm-'.length) as ModeKey;

/**
 * Two rows per storm run for the report: drained in time, and the all-in CPU per incident. A
 * storm that lost incidents fails both, even when what it kept drained in time.
 */
export function stormVerdicts(outcomes: RunOutcome[]): StormVerdict[] {
  return outcomes
    .filter((run) => run.id.startsWith('storm-'))
    .flatMap((run) => {
      const storm = run as StormOutcome;
      const mode = modeOf(run.id);
      const drainBound = STORM_DRAIN_TARGET_S[mode];
      const cpuBound = STORM_ALL_IN_TARGET_MS[mode];
      const drain = { label: `storm follow-up drained (${mode})`, target: `≤ ${drainBound} s` };
      const cpu = {
        label: `storm all-in CPU per new incident (${mode})`,
        target: `≤ ${cpuBound} ms`,
      };
      const both = (value: string, verdict: StormVerdict['verdict']): StormVerdict[] => [
        { ...drain, value, verdict },
        { ...cpu, value, verdict },
      ];
      if (run.status === 'skipped') return both('skipped', 'n/a');
      if (run.status !== 'ok') return both('run failed', 'FAIL');
      if (storm.drainSeconds === undefined)
        return both(`not drained in ${GIVE_UP_MS / 1000} s`, 'FAIL');
      const complete = storm.incidentsCreated === storm.alertsSent;
      const lost = complete ? '' : ` (${storm.incidentsCreated}/${storm.alertsSent} incidents)`;
      const cpuMs = storm.allInCpuMsPerIncident;
      return [
        {
          ...drain,
          value: `${storm.drainSeconds.toFixed(1)} s${lost}`,
          verdict: complete && storm.drainSeconds <= drainBound ? 'PASS' : 'FAIL',
        },
        {
          ...cpu,
          value: cpuMs === undefined ? 'not quiet' : `${cpuMs.toFixed(3)} ms${lost}`,
          verdict: complete && cpuMs !== undefined && cpuMs <= cpuBound ? 'PASS' : 'FAIL',
        },
      ];
    });
}

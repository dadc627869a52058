import { alertmanagerPlan, startAlertmanager } from '../alertmanager.js';
import { startBareServer, startFastifyFloor } from '../lib/bare.js';
import {
  convergedAlertRequest,
  newAlertSequence,
  signalRequests,
  WIDE_FINGERPRINTS,
  wideConvergedRequests,
} from '../lib/bodies.js';
import { distributedNames } from '../lib/distributed.js';
import type { LoadPlan, SampleResponse } from '../lib/load.js';
import { counterByLabel, describeCounts, total } from '../lib/metrics.js';
import type { RunSpec } from '../lib/run-spec.js';
import { type StoreMode, startService } from '../lib/service.js';
import type { Target } from '../lib/target.js';

export interface BenchContext {
  secret: string;
  /** `bench_<random>`: names this bench's temp dirs, schemas and Redis keys. */
  tag: string;
  /** Seconds of warm-up plus measurement, to size the new-alert body pool. */
  totalSeconds: number;
  workDir(name: string): Promise<string>;
  /** Why PostgreSQL/Redis runs are skipped, if they are. */
  distributedUnavailable?: string;
  alertmanagerBinary?: string;
  cpuProfileDir(runId: string): string | undefined;
}

const SIGNALS_PATH = '/api/v1/webhooks/signals';
const ALERTS_PATH = '/api/v1/webhooks/alerts';
/** Far above the new-alert rates seen so far (about 1k/s on 2 cores), so bodies never repeat. */
const NEW_ALERT_POOL_PER_SECOND = 15_000;

function jsonField(sample: SampleResponse, field: string): unknown {
  try {
    return (JSON.parse(sample.body) as Record<string, unknown>)[field];
  } catch {
    return undefined;
  }
}

function expectField(field: string, expected: unknown) {
  return (sample: SampleResponse) => {
    const actual = jsonField(sample, field);
    return actual === expected
      ? undefined
      : `sample answered ${field}=${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`;
  };
}

async function signalCounts(target: Target): Promise<string[]> {
  const produced = await counterByLabel(target.baseUrl, 'signals_produced_total', 'severity');
  const consumed = await counterByLabel(target.baseUrl, 'signals_consumed_total', 'outcome');
  return [
    `signals produced ${total(produced)}; consumed by the in-process consumer so far ${total(consumed)} (${describeCounts(consumed)})`,
  ];
}

async function alertCounts(target: Target): Promise<string[]> {
  const processed = await counterByLabel(target.baseUrl, 'alerts_processed_total', 'outcome');
  return [`alerts processed: ${describeCounts(processed)}`];
}

function signalsPlan(secret: string): LoadPlan {
  return {
    method: 'POST',
    path: SIGNALS_PATH,
    source: { kind: 'rotate', requests: signalRequests(secret) },
  };
}

/** Pre-signs the distinct bodies only when the run starts, so skipped runs cost nothing. */
function newAlertPlan(secret: string, poolSize: number) {
  let sequence: ReturnType<typeof newAlertSequence> | undefined;
  const get = () => {
    sequence ??= newAlertSequence(secret, poolSize);
    return sequence;
  };
  const plan: LoadPlan = {
    method: 'POST',
    path: ALERTS_PATH,
    source: { kind: 'sequence', next: () => get().next() },
  };
  const notes = () => {
    const used = sequence?.used() ?? 0;
    const beyond = Math.max(0, used - poolSize);
    return [
      `distinct alert bodies sent: ${used} (pre-signed pool ${poolSize}${beyond ? `, ${beyond} signed during the run` : ''})`,
    ];
  };
  return { plan, notes };
}

function serviceRuns(ctx: BenchContext, modeKey: 'embedded' | 'distributed'): RunSpec[] {
  const modeLabel = modeKey === 'embedded' ? 'embedded SQLite' : 'PostgreSQL + Redis';
  const skip = modeKey === 'distributed' ? ctx.distributedUnavailable : undefined;
  const start = (runId: string) => async () => {
    const mode: StoreMode =
      modeKey === 'embedded'
        ? { kind: 'embedded' }
        : { kind: 'distributed', ...distributedNames(ctx.tag, runId.replace(/-distributed$/, '')) };
    return startService({
      mode,
      workDir: await ctx.workDir(runId),
      secret: ctx.secret,
      cpuProfileDir: ctx.cpuProfileDir(runId),
    });
  };
  const newAlerts = newAlertPlan(
    ctx.secret,
    Math.max(200_000, ctx.totalSeconds * NEW_ALERT_POOL_PER_SECOND),
  );
  const ids = {
    signals: `signals-${modeKey}`,
    converged: `converged-${modeKey}`,
    wide: `converged-wide-${modeKey}`,
    newAlert: `new-alert-${modeKey}`,
  };
  return [
    {
      id: ids.signals,
      label: `signals, ${modeLabel}`,
      skip,
      start: start(ids.signals),
      plan: signalsPlan(ctx.secret),
      checkSample: expectField('success', true),
      afterLoad: signalCounts,
      cpuProfileDir: ctx.cpuProfileDir(ids.signals),
    },
    {
      id: ids.converged,
      label: `alerts converged, ${modeLabel}`,
      skip,
      start: start(ids.converged),
      plan: {
        method: 'POST',
        path: ALERTS_PATH,
        source: { kind: 'rotate', requests: [convergedAlertRequest(ctx.secret)] },
      },
      // The sample is the one create; everything the load sends afterwards converges on it.
      checkSample: expectField('status', 'created'),
      afterLoad: alertCounts,
      cpuProfileDir: ctx.cpuProfileDir(ids.converged),
    },
    {
      id: ids.wide,
      label: `alerts converged over ${WIDE_FINGERPRINTS} fingerprints, ${modeLabel}`,
      skip,
      start: start(ids.wide),
      plan: {
        method: 'POST',
        path: ALERTS_PATH,
        source: { kind: 'rotate', requests: wideConvergedRequests(ctx.secret) },
      },
      // The sample opens the first incident; the warm-up opens the rest.
      checkSample: expectField('status', 'created'),
      afterLoad: alertCounts,
      cpuProfileDir: ctx.cpuProfileDir(ids.wide),
    },
    {
      id: ids.newAlert,
      label: `alerts new incident, ${modeLabel}`,
      skip,
      start: start(ids.newAlert),
      plan: newAlerts.plan,
      checkSample: expectField('status', 'created'),
      afterLoad: async (target) => [...newAlerts.notes(), ...(await alertCounts(target))],
      cpuProfileDir: ctx.cpuProfileDir(ids.newAlert),
    },
  ];
}

/** The runs of the intake issue, in the order they are executed. */
export function intakeRuns(ctx: BenchContext): RunSpec[] {
  const binary = ctx.alertmanagerBinary;
  return [
    {
      id: 'bare',
      label: 'bare node:http baseline (signal bodies)',
      start: () => startBareServer(ctx.secret, ctx.cpuProfileDir('bare')),
      plan: signalsPlan(ctx.secret),
      checkSample: expectField('success', true),
      cpuProfileDir: ctx.cpuProfileDir('bare'),
    },
    {
      id: 'fastify-floor',
      label: 'Fastify floor: bare work in a Fastify route',
      start: () => startFastifyFloor(ctx.secret, ctx.cpuProfileDir('fastify-floor')),
      plan: signalsPlan(ctx.secret),
      checkSample: expectField('success', true),
      cpuProfileDir: ctx.cpuProfileDir('fastify-floor'),
    },
    ...serviceRuns(ctx, 'embedded'),
    ...serviceRuns(ctx, 'distributed'),
    {
      id: 'alertmanager',
      label: 'Alertmanager POST /api/v2/alerts (same alert)',
      skip: binary
        ? undefined
        : 'not installed: apt-get install prometheus-alertmanager (or set BENCH_ALERTMANAGER)',
      start: async () => startAlertmanager(binary!, await ctx.workDir('alertmanager')),
      plan: alertmanagerPlan(),
    },
  ];
}

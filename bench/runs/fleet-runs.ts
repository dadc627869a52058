import { setTimeout as sleep } from 'node:timers/promises';
import { convergedAlertRequest, newAlertSequence } from '../lib/bodies.js';
import { distributedNames } from '../lib/distributed.js';
import { stopTarget } from '../lib/execute.js';
import { type LoadPlan, type LoadSettings, sendSample } from '../lib/load.js';
import { type CpuProbe, treeCpuMs } from '../lib/proc-cpu.js';
import type { RunOutcome } from '../lib/run-spec.js';
import { startService } from '../lib/service.js';
import { isDrained, openDrainReader } from '../lib/storm-drain.js';
import { cannon } from '../lib/sustained-load.js';
import type { Target } from '../lib/target.js';
import type { BenchContext } from './intake-runs.js';

/**
 * A fleet in miniature: three replicas on one PostgreSQL schema and one Redis prefix, the load
 * dealt round-robin (one autocannon per replica, a third of the connections each). On one
 * machine the replicas share its cores with PostgreSQL and the load, so throughput says
 * little; what carries over to separate machines is the CPU each alert costs a replica and
 * PostgreSQL, which the README's scaling model turns into a ceiling.
 */
const REPLICAS = Number(process.env.BENCH_FLEET_REPLICAS ?? 3);
const ALERTS_PATH = '/api/v1/webhooks/alerts';
const STORM_ALERTS = Number(process.env.BENCH_FLEET_STORM_ALERTS ?? 6_000);
const QUIET_MS_PER_S = 40;

export interface FleetOutcome extends RunOutcome {
  /** CPU ms per alert: each replica's own, then PostgreSQL's and Redis's per alert in all. */
  perReplicaMs?: number[];
  postgresMs?: number;
  redisMs?: number;
}

const cpuOf = (probes: CpuProbe[]) =>
  Promise.all(probes.map(async (probe) => (await treeCpuMs(probe.pid)) ?? 0));

function describe(outcome: FleetOutcome, what: string) {
  const replicas = (outcome.perReplicaMs ?? []).map((ms) => ms.toFixed(3)).join(', ');
  outcome.notes.push(
    `${what}: per replica ${replicas} ms CPU per alert it answered; PostgreSQL ${outcome.postgresMs?.toFixed(3) ?? '-'} ms and Redis ${outcome.redisMs?.toFixed(3) ?? '-'} ms per alert in all`,
  );
}

/** Converged load for `seconds`: the same alert to every replica, hit counts raised. */
async function converged(
  targets: Target[],
  servers: CpuProbe[],
  settings: LoadSettings,
  secret: string,
  outcome: FleetOutcome,
) {
  const request = convergedAlertRequest(secret);
  const plan: LoadPlan = {
    method: 'POST',
    path: ALERTS_PATH,
    source: { kind: 'rotate', requests: [request] },
  };
  await sendSample(targets[0]!.baseUrl, plan);
  const connections = Math.max(1, Math.floor(settings.connections / targets.length));
  const replicaProbes = targets.map((target) => ({
    name: 'target' as const,
    pid: target.child.pid,
  }));
  const before = await cpuOf([...replicaProbes, ...servers]);
  const results = await Promise.all(
    targets.map((target) =>
      cannon(target.baseUrl, plan, { connections, seconds: settings.seconds }),
    ),
  );
  const after = await cpuOf([...replicaProbes, ...servers]);
  const answered = results.map((result) => result.completed);
  const all = answered.reduce((sum, n) => sum + n, 0);
  outcome.perReplicaMs = targets.map(
    (_, i) => (after[i]! - before[i]!) / Math.max(1, answered[i]!),
  );
  servers.forEach((probe, j) => {
    const ms = (after[targets.length + j]! - before[targets.length + j]!) / Math.max(1, all);
    if (probe.name === 'postgres') outcome.postgresMs = ms;
    if (probe.name === 'redis') outcome.redisMs = ms;
  });
  const rps = results.reduce((sum, result) => sum + result.rps, 0);
  const bad = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0);
  outcome.notes.push(
    `converged: ${all} alerts over ${targets.length} replicas, ${rps.toFixed(0)}/s in all, non-2xx or errors ${bad}`,
  );
  describe(outcome, 'converged');
}

/** A storm dealt across the replicas, then its follow-up drained, CPU counted until quiet. */
async function storm(
  targets: Target[],
  servers: CpuProbe[],
  settings: LoadSettings,
  secret: string,
  store: Parameters<typeof openDrainReader>[0],
  outcome: FleetOutcome,
) {
  const sequence = newAlertSequence(secret, STORM_ALERTS);
  const plan: LoadPlan = {
    method: 'POST',
    path: ALERTS_PATH,
    source: { kind: 'sequence', next: () => sequence.next() },
  };
  const replicaProbes = targets.map((target) => ({
    name: 'target' as const,
    pid: target.child.pid,
  }));
  const probes = [...replicaProbes, ...servers];
  const before = await cpuOf(probes);
  const share = Math.floor(STORM_ALERTS / targets.length);
  const connections = Math.max(1, Math.floor(settings.connections / targets.length));
  const results = await Promise.all(
    targets.map((target) => cannon(target.baseUrl, plan, { connections, amount: share })),
  );
  const reader = await openDrainReader(store);
  const lastAnswer = Math.max(...results.map((result) => result.lastAnswerAt));
  try {
    while (!isDrained(await reader.counts())) {
      if (Date.now() - lastAnswer > 120_000) throw new Error('fleet storm not drained in 120 s');
      await sleep(250);
    }
  } finally {
    await reader.close();
  }
  const drained = (Date.now() - lastAnswer) / 1000;
  let last = await cpuOf(probes);
  for (let second = 0; second < 120; second += 1) {
    await sleep(1_000);
    const now = await cpuOf(probes);
    const spent = now.reduce((sum, ms, i) => sum + ms - last[i]!, 0);
    if (spent < QUIET_MS_PER_S) break;
    last = now;
  }
  const answered = results.map((result) => result.completed);
  const all = answered.reduce((sum, n) => sum + n, 0);
  outcome.perReplicaMs = targets.map((_, i) => (last[i]! - before[i]!) / Math.max(1, answered[i]!));
  servers.forEach((probe, j) => {
    const ms = (last[targets.length + j]! - before[targets.length + j]!) / Math.max(1, all);
    if (probe.name === 'postgres') outcome.postgresMs = ms;
    if (probe.name === 'redis') outcome.redisMs = ms;
  });
  const rps = results.reduce((sum, result) => sum + result.rps, 0);
  outcome.notes.push(
    `storm: ${all} new incidents over ${targets.length} replicas at ${rps.toFixed(0)}/s, follow-up drained ${drained.toFixed(1)} s after the last answer; CPU counted until a second under ${QUIET_MS_PER_S} ms`,
  );
  describe(outcome, 'storm, all-in');
}

/** Three replicas (BENCH_FLEET_REPLICAS) on PostgreSQL + Redis: converged, then a storm. */
export function fleetRuns(ctx: BenchContext) {
  return (['converged', 'storm'] as const).map((kind) => {
    const id = `fleet-${kind}-distributed`;
    const label = `${REPLICAS} replicas, ${kind === 'converged' ? 'converged alerts' : `storm of ${STORM_ALERTS} new incidents`}, PostgreSQL + Redis`;
    return {
      id,
      label,
      skip: ctx.distributedUnavailable,
      async execute(settings: LoadSettings, servers: CpuProbe[] = []): Promise<FleetOutcome> {
        const outcome: FleetOutcome = { id, label, status: 'failed', notes: [] };
        if (ctx.distributedUnavailable)
          return { ...outcome, status: 'skipped', reason: ctx.distributedUnavailable };
        console.log(`\n— ${label}`);
        const names = distributedNames(ctx.tag, id);
        const mode = { kind: 'distributed' as const, ...names };
        const targets: Target[] = [];
        try {
          // One after another: the first runs the migrations the others then find done.
          for (let i = 0; i < REPLICAS; i += 1) {
            const workDir = await ctx.workDir(`${id}-${i}`);
            targets.push(await startService({ mode, workDir, secret: ctx.secret }));
          }
          if (kind === 'converged')
            await converged(targets, servers, settings, ctx.secret, outcome);
          else {
            const store = { mode, workDir: await ctx.workDir(id) };
            await storm(targets, servers, settings, ctx.secret, store, outcome);
          }
          outcome.status = 'ok';
        } catch (error) {
          outcome.reason = (error as Error).message;
          console.error(`  !!! ${label} FAILED: ${outcome.reason}`);
        } finally {
          for (const target of targets) await stopTarget(target, outcome);
        }
        for (const note of outcome.notes) console.log(`  ${note}`);
        return outcome;
      },
    };
  });
}

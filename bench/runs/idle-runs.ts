import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { DATABASE_URL, distributedNames } from '../lib/distributed.js';
import { stopTarget } from '../lib/execute.js';
import { type CpuProbe, treeCpuMs } from '../lib/proc-cpu.js';
import type { RunOutcome } from '../lib/run-spec.js';
import { type StoreMode, startService } from '../lib/service.js';
import type { Target } from '../lib/target.js';
import type { BenchContext } from './intake-runs.js';

/**
 * An idle service: started, settled, then left alone. What it spends then is polling, which
 * every replica pays around the clock. Each PostgreSQL run gets a database of its own, so
 * `pg_stat_database` counts this service's commits and nobody else's.
 */
/**
 * Long enough for start-up's garbage to be collected: V8's memory reducer runs a few full
 * collections in the first half minute after the work stops (about 17 ms of CPU a second
 * then), which is start-up's cost, not idling's.
 */
const SETTLE_MS = Number(process.env.BENCH_IDLE_SETTLE_SECONDS ?? 40) * 1000;
const MEASURE_MS = Number(process.env.BENCH_IDLE_SECONDS ?? 30) * 1000;
export const IDLE_CPU_TARGET_MS_PER_S = 5;
export const IDLE_COMMITS_TARGET_PER_S = 2;

type IdleMode = 'embedded' | 'postgres' | 'distributed';

export interface IdleOutcome extends RunOutcome {
  cpuMsPerSecond?: number;
  postgresCpuMsPerSecond?: number;
  commitsPerSecond?: number;
}

const LABELS: Record<IdleMode, string> = {
  embedded: 'embedded SQLite',
  postgres: 'PostgreSQL, no Redis',
  distributed: 'PostgreSQL + Redis',
};

function adminClient(database?: string): pg.Client {
  const url = new URL(DATABASE_URL);
  url.searchParams.delete('schema');
  if (database) url.pathname = `/${database}`;
  return new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 });
}

/** A fresh database named under the bench tag; `cleanupDistributed` drops it. */
async function createDatabase(name: string): Promise<string> {
  const admin = adminClient();
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(DATABASE_URL);
  url.searchParams.delete('schema');
  url.pathname = `/${name}`;
  return url.toString();
}

/** Commits of one database so far, read from another database so the read is not counted. */
async function commitsOf(database: string): Promise<number> {
  const admin = adminClient();
  await admin.connect();
  try {
    // Backends flush their counts at most once a second (an idle one within 10 s), which the
    // settling and the long window absorb; the snapshot must not be a cached one.
    await admin.query('select pg_stat_clear_snapshot()');
    const { rows } = await admin.query<{ xact_commit: string }>(
      'select xact_commit from pg_stat_database where datname = $1',
      [database],
    );
    return Number(rows[0]?.xact_commit ?? 0);
  } finally {
    await admin.end();
  }
}

async function storeFor(ctx: BenchContext, mode: IdleMode, runId: string) {
  if (mode === 'embedded') return { mode: { kind: 'embedded' } as StoreMode };
  const database = `${ctx.tag}_${runId.replace(/[^a-z0-9_]/g, '_')}`;
  const databaseUrl = await createDatabase(database);
  if (mode === 'postgres')
    return { mode: { kind: 'postgres', databaseUrl } as StoreMode, database };
  const names = distributedNames(ctx.tag, runId);
  return {
    mode: { kind: 'distributed', ...names, databaseUrl } as StoreMode,
    database,
  };
}

async function measureIdle(
  outcome: IdleOutcome,
  target: Target,
  postgres: CpuProbe | undefined,
  database: string | undefined,
) {
  await sleep(SETTLE_MS);
  const pid = target.child.pid;
  const cpu = async (probe: CpuProbe | undefined) => (probe ? treeCpuMs(probe.pid) : undefined);
  const [targetBefore, pgBefore, commitsBefore] = await Promise.all([
    treeCpuMs(pid),
    cpu(postgres),
    database ? commitsOf(database) : undefined,
  ]);
  const startedAt = Date.now();
  await sleep(MEASURE_MS);
  const [targetAfter, pgAfter, commitsAfter] = await Promise.all([
    treeCpuMs(pid),
    cpu(postgres),
    database ? commitsOf(database) : undefined,
  ]);
  const seconds = (Date.now() - startedAt) / 1000;
  if (targetBefore === undefined || targetAfter === undefined)
    throw new Error('the service exited while idle');
  outcome.cpuMsPerSecond = (targetAfter - targetBefore) / seconds;
  if (pgBefore !== undefined && pgAfter !== undefined)
    outcome.postgresCpuMsPerSecond = (pgAfter - pgBefore) / seconds;
  if (commitsBefore !== undefined && commitsAfter !== undefined)
    outcome.commitsPerSecond = (commitsAfter - commitsBefore) / seconds;
  const parts = [`service ${outcome.cpuMsPerSecond.toFixed(1)} ms CPU/s`];
  if (outcome.postgresCpuMsPerSecond !== undefined)
    parts.push(`PostgreSQL (whole server) ${outcome.postgresCpuMsPerSecond.toFixed(1)} ms CPU/s`);
  if (outcome.commitsPerSecond !== undefined)
    parts.push(`${outcome.commitsPerSecond.toFixed(2)} commits/s`);
  outcome.notes.push(
    `idle for ${seconds.toFixed(0)} s after ${SETTLE_MS / 1000} s: ${parts.join(', ')}`,
  );
}

/** The idle service, embedded, on PostgreSQL alone, and on PostgreSQL + Redis. */
export function idleRuns(ctx: BenchContext) {
  return (['embedded', 'postgres', 'distributed'] as IdleMode[]).map((mode) => {
    const id = `idle-${mode}`;
    const label = `idle service, ${LABELS[mode]}`;
    const skip = mode === 'embedded' ? undefined : ctx.distributedUnavailable;
    return {
      id,
      label,
      skip,
      async execute(_settings: unknown, probes: CpuProbe[] = []): Promise<IdleOutcome> {
        const outcome: IdleOutcome = { id, label, status: 'failed', notes: [] };
        if (skip) return { ...outcome, status: 'skipped', reason: skip };
        console.log(`\n— ${label}`);
        let target: Target | undefined;
        try {
          const store = await storeFor(ctx, mode, id);
          target = await startService({
            mode: store.mode,
            workDir: await ctx.workDir(id),
            secret: ctx.secret,
          });
          const postgres = probes.find((probe) => probe.name === 'postgres');
          await measureIdle(outcome, target, postgres, store.database);
          outcome.targetProblemLines = target.child.problemLines();
          outcome.status = 'ok';
        } catch (error) {
          outcome.reason = (error as Error).message;
          console.error(`  !!! ${label} FAILED: ${outcome.reason}`);
        } finally {
          if (target) await stopTarget(target, outcome);
        }
        for (const note of outcome.notes) console.log(`  ${note}`);
        return outcome;
      },
    };
  });
}

export interface IdleVerdict {
  label: string;
  value: string;
  target: string;
  verdict: 'PASS' | 'FAIL' | 'n/a';
}

/** "Idle is idle": ≤ 5 ms CPU a second and ≤ 2 commits a second, on PostgreSQL. */
export function idleVerdicts(outcomes: RunOutcome[]): IdleVerdict[] {
  return outcomes
    .filter((run) => run.id.startsWith('idle-'))
    .flatMap((run) => {
      const idle = run as IdleOutcome;
      const mode = run.id.slice('idle-'.length);
      if (run.status !== 'ok')
        return [{ label: `idle CPU (${mode})`, value: run.status, target: '', verdict: 'n/a' }];
      const rows: IdleVerdict[] = [];
      const cpu = idle.cpuMsPerSecond ?? Number.NaN;
      rows.push({
        label: `idle service CPU (${mode})`,
        value: `${cpu.toFixed(1)} ms/s`,
        target: `≤ ${IDLE_CPU_TARGET_MS_PER_S} ms/s`,
        verdict: cpu <= IDLE_CPU_TARGET_MS_PER_S ? 'PASS' : 'FAIL',
      });
      if (idle.commitsPerSecond !== undefined)
        rows.push({
          label: `idle commits (${mode})`,
          value: `${idle.commitsPerSecond.toFixed(2)}/s`,
          target: `≤ ${IDLE_COMMITS_TARGET_PER_S}/s`,
          verdict: idle.commitsPerSecond <= IDLE_COMMITS_TARGET_PER_S ? 'PASS' : 'FAIL',
        });
      return rows;
    });
}

import type { BenchContext } from '../runs/intake-runs.js';
import { findCpuProfile, summarizeCpuProfile } from './cpu-profile.js';
import { distributedNames } from './distributed.js';
import { stopTarget } from './execute.js';
import type { LoadSettings } from './load.js';
import type { CpuProbe } from './proc-cpu.js';
import type { RunOutcome } from './run-spec.js';
import { type StoreMode, startService } from './service.js';
import { readStatementTimes } from './statement-times.js';
import type { Target } from './target.js';

export type ModeKey = 'embedded' | 'distributed';

/** Shaped like SseRunSpec: a run that drives its own load and returns a RunOutcome. */
export interface OwnLoadRunSpec<O extends RunOutcome = RunOutcome> {
  id: string;
  label: string;
  skip?: string;
  /** `serverProbes`: PostgreSQL and Redis, for runs whose CPU counts theirs too. */
  execute(settings: LoadSettings, serverProbes?: CpuProbe[]): Promise<O>;
}

export const modeLabel = (modeKey: ModeKey) =>
  modeKey === 'embedded' ? 'embedded SQLite' : 'PostgreSQL + Redis';

/** The store of one run: its own DATA_DIR, and in distributed mode its own schema and keys. */
export interface RunStore {
  mode: StoreMode;
  workDir: string;
}

/**
 * The part every self-driven run shares with execute.ts: skip, one fresh service, warn/error
 * lines counted up to the end of the measurement, the service stopped whatever happens, and
 * anything odd at shutdown noted. `measure` fills the outcome and sets status 'ok'.
 */
export async function withOwnService<O extends RunOutcome>(
  ctx: BenchContext,
  spec: {
    id: string;
    label: string;
    skip?: string;
    modeKey: ModeKey;
    /** Extra service variables (the chat storm points the service at its Bot API stand-in). */
    env?: Record<string, string>;
  },
  outcome: O,
  measure: (target: Target, store: RunStore) => Promise<void>,
): Promise<O> {
  if (spec.skip) {
    console.log(`\n— ${spec.label}: SKIPPED (${spec.skip})`);
    return { ...outcome, status: 'skipped', reason: spec.skip };
  }
  console.log(`\n— ${spec.label}`);
  const store: RunStore = {
    mode:
      spec.modeKey === 'embedded'
        ? { kind: 'embedded' }
        : { kind: 'distributed', ...distributedNames(ctx.tag, spec.id) },
    workDir: await ctx.workDir(spec.id),
  };
  let target: Target | undefined;
  try {
    target = await startService({
      mode: store.mode,
      workDir: store.workDir,
      secret: ctx.secret,
      env: spec.env,
      cpuProfileDir: ctx.cpuProfileDir(spec.id),
    });
    outcome.readyVia = target.readyVia;
    console.log(`  ready at ${target.baseUrl} (via ${target.readyVia}), pid ${target.child.pid}`);
    await measure(target, store);
    outcome.targetProblemLines = target.child.problemLines();
    outcome.status = 'ok';
  } catch (error) {
    outcome.status = 'failed';
    outcome.reason = (error as Error).message;
    console.error(`  !!! ${spec.label} FAILED: ${outcome.reason}`);
  } finally {
    if (target) await stopTarget(target, outcome);
  }
  // The whole process: these runs' work trails their load (a storm's follow-up), so no window.
  const profileDir = ctx.cpuProfileDir(spec.id);
  if (target && profileDir) {
    const file = await findCpuProfile(profileDir, target.child.pid);
    if (file) {
      outcome.profile = await summarizeCpuProfile(file);
      outcome.profile.statements = await readStatementTimes(profileDir, target.child.pid);
    } else outcome.notes.push(`no CPU profile found in ${profileDir}`);
  }
  for (const note of outcome.notes) console.log(`  ${note}`);
  return outcome;
}

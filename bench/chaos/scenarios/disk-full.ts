import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { killHard, type Replica, startReplica } from '../cluster.js';
import { type ChaosScale, Scenario, type ScenarioReport } from '../report.js';
import { type Answer, describeStatuses, inParallel, postAlert, within } from '../requests.js';

const TMPFS_MIB = 8;
const BALLAST_MIB = 2;
const FULL_DETAIL = 'Database storage is full: nothing was recorded, retry once space is freed';

/** `all`, or how many incidents still wait for their AUTO_REPAIR_TRIGGERED entry. */
function followedUp(file: string): string {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const row = db
      .prepare(
        `SELECT count(*) AS waiting FROM incidents i WHERE i.namespace = 'chaos-disk' AND NOT EXISTS
           (SELECT 1 FROM operation_log o WHERE o.approval_id = i.approval_id
              AND o.type = 'AUTO_REPAIR_TRIGGERED')`,
      )
      .get() as { waiting: number };
    return row.waiting === 0 ? 'all' : `${row.waiting} incidents not followed up`;
  } finally {
    db.close();
  }
}

const alert = (i: number) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'chaos-disk',
  target_resource: `svc-${i}`,
  message: `${'Back-off restarting failed container. '.repeat(60)}(${i})`,
});

/**
 * The embedded database's disk fills up (a small tmpfs): a write that does not fit is
 * refused with a 503 naming the cause; the file stays intact, even through a SIGKILL while
 * full; every accepted alert is kept; writes are accepted again once space is freed.
 */
export async function diskFullScenario(scale: ChaosScale): Promise<ScenarioReport> {
  const scenario = new Scenario('embedded database on a full disk');
  const disk = fs.mkdtempSync(path.join(os.tmpdir(), 'chaos-disk-'));
  let mounted = false;
  let replica: Replica | undefined;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_MIB}m`, 'tmpfs', disk]);
    mounted = true;
    const ballast = path.join(disk, 'ballast');
    fs.writeFileSync(ballast, Buffer.alloc(BALLAST_MIB * 1024 * 1024, 1));
    replica = await startReplica('embedded', {}, { dataDir: disk });
    scenario.figure('disk', `tmpfs of ${TMPFS_MIB} MiB with ${BALLAST_MIB} MiB of ballast`);

    const answers: Answer[] = [];
    let sent = 0;
    const batch = scale.short ? 16 : 32;
    // Until the disk refuses: batches of concurrent alerts, then a few more batches while full.
    let fullBatches = 0;
    while (fullBatches < 3 && sent < 50_000) {
      const base = sent;
      const round = await inParallel(batch, batch, (i) => postAlert(replica!.url, alert(base + i)));
      sent += batch;
      answers.push(...round);
      if (round.some((a) => a.status === 503)) fullBatches += 1;
    }
    const accepted = answers.flatMap((a, i) => (a.status === 200 ? [i] : []));
    const refused = answers.filter((a) => a.status === 503);
    scenario.figure('alerts sent until full and after', `${sent}: ${describeStatuses(answers)}`);
    scenario.check(
      'every answer is 200 or 503; no 500, no dropped connection',
      answers.every((a) => a.status === 200 || a.status === 503),
      describeStatuses(answers),
    );
    scenario.check(
      'a refusal names the cause',
      refused.length > 0 &&
        refused.every(
          (a) =>
            (a.body as { detail?: string; code?: string })?.detail === FULL_DETAIL &&
            (a.body as { code?: string }).code === 'storage_full',
        ),
      refused.length > 0 ? JSON.stringify(refused[0]!.body) : 'never refused',
    );
    const ready = await fetch(`${replica.url}/api/v1/livez`);
    scenario.check('the process stays alive while full', ready.ok && !replica.child.hasExited());

    await killHard(replica);
    const file = path.join(disk, 'app.db');
    const db = new Database(file, { readonly: true, fileMustExist: true });
    let integrity: unknown;
    let stored = new Set<string>();
    try {
      integrity = db.pragma('integrity_check', { simple: true });
      stored = new Set(
        (
          db
            .prepare("SELECT target_resource FROM incidents WHERE namespace = 'chaos-disk'")
            .all() as { target_resource: string }[]
        ).map((row) => row.target_resource),
      );
    } finally {
      db.close();
    }
    scenario.check(
      'after a SIGKILL while full the database file passes integrity_check',
      integrity === 'ok',
      String(integrity),
    );
    const lost = accepted.filter((i) => !stored.has(`svc-${i}`)).length;
    scenario.check(
      'every accepted alert is stored, and no refused one',
      lost === 0 && stored.size === accepted.length,
      `${accepted.length} accepted, ${stored.size} stored, ${lost} lost`,
    );

    replica = await startReplica('embedded', {}, { dataDir: disk });
    const stillFull = await postAlert(replica.url, alert(900_000));
    scenario.check(
      'restarted on the full disk, it starts and refuses cleanly',
      stillFull.status === 503 || stillFull.status === 200,
      `${stillFull.status}`,
    );
    fs.rmSync(ballast);
    const freedAt = Date.now();
    const recoveredMs = await within(10_000, async () => {
      const answer = await postAlert(replica!.url, alert(900_001 + (Date.now() % 1000)));
      return answer.status === 200;
    });
    scenario.check(
      'once space is freed, alerts are accepted again without a restart',
      recoveredMs >= 0,
      recoveredMs >= 0 ? `after ${Date.now() - freedAt} ms` : 'still refused after 10 s',
    );
    const drainedMs = await within(60_000, async () => followedUp(file) === 'all');
    scenario.check(
      'once space is freed, every stored incident gets its follow-up (repair evaluated)',
      drainedMs >= 0,
      drainedMs >= 0 ? `within ${(drainedMs / 1000).toFixed(1)} s` : followedUp(file),
    );
  } catch (error) {
    scenario.crashed(error);
  } finally {
    if (replica && !replica.child.hasExited()) await replica.child.stop(5_000);
    if (mounted) execFileSync('umount', ['-l', disk]);
    fs.rmSync(disk, { recursive: true, force: true });
  }
  return scenario.report;
}

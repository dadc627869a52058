import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  followNewIncidents,
  INCIDENT_FOLLOW_UP_JOB,
  SINGLE_FOLLOW_UP_JOB,
} from '../../src/features/escalation/incident-followup.js';
import { insertOutboxJobs } from '../../src/features/outbox/outbox-records.js';
import { storeKinds } from '../helpers/backends.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import {
  followUpCompleted,
  followUpJobs,
  holdJobsInTransaction,
  jobsInTransaction,
} from '../helpers/follow-up-jobs.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  crashLoop,
  env,
  followedUp,
  refuseEnqueues,
  triggeredEntries,
  URL,
} from './follow-up-fixtures.js';

/**
 * An incident and its follow-up commit together: on the SQL queue the job itself, in front of
 * Redis an outbox row (test/outbox/incident-follow-up-outbox.test.ts). A crash or an outage
 * after the commit delays the follow-up (its card, its repair evaluation) but cannot lose it.
 */

describe.each(backends())("an incident's follow-up on %s", (backend) => {
  it('evaluates a dry run inside the follow-up job, once, with no job of its own', async () => {
    const { app } = await buildTestApp({ backend, env });
    const { approval_id: approvalId, incident_id: incidentId } = (
      await postSigned(app, URL, crashLoop())
    ).json();
    await followedUp(app, approvalId);
    const jobId = `follow-up-${incidentId}`;
    await waitFor(async () => ((await followUpCompleted(app, jobId)) ? true : undefined), {
      what: 'the follow-up job reporting completion',
    });
    const { db } = app.services.store;
    const evaluation = `repair-evaluate-${approvalId}`;
    expect(await db.selectFrom('jobs').select('id').where('id', '=', evaluation).execute()).toEqual(
      [],
    );
    expect(
      await db.selectFrom('outbox').select('job_id').where('job_id', '=', evaluation).execute(),
    ).toEqual([]);
    expect(await triggeredEntries(app, approvalId)).toHaveLength(1);
  });

  it('happens after a restart when the process died between the commit and the run', async () => {
    const first = await buildTestApp({ backend, env });
    // Nothing this process committed is run by it: as if it were killed right after the
    // incident's commit. In front of Redis its enqueue fails; on the SQL queue the job row
    // is committed but not due while this process lives.
    refuseEnqueues(first.app);
    const held = holdJobsInTransaction(first.app);
    const alert = crashLoop();
    await postSigned(first.app, URL, alert);
    // What the dying process committed, whatever it managed to answer.
    const incident = await first.app.services.store.db
      .selectFrom('incidents')
      .select(['id', 'approval_id'])
      .where('namespace', '=', alert.namespace)
      .executeTakeFirstOrThrow();
    const approvalId = incident.approval_id ?? '';
    expect(approvalId).not.toBe('');
    expect(await triggeredEntries(first.app, approvalId)).toEqual([]);
    await first.close();

    const second = await buildTestApp({ reuse: first });
    // The restart is what makes it due: the job row waited in the database.
    await held.release(second.app, `follow-up-${incident.id}`, INCIDENT_FOLLOW_UP_JOB.name);
    await followedUp(second.app, approvalId);
    expect(await triggeredEntries(second.app, approvalId)).toHaveLength(1);
  });
  it('follows the incidents of one Alertmanager notification as one job, each evaluated once', async () => {
    const { app } = await buildTestApp({ backend, env });
    const namespace = `ns-${crypto.randomBytes(4).toString('hex')}`;
    const alerts = Array.from({ length: 40 }, (_, i) => ({
      labels: {
        alertname: 'KubePodCrashLooping',
        namespace,
        pod: `pod-${i}`,
        severity: 'critical',
      },
      annotations: { summary: 'restarting' },
      status: 'firing',
    }));
    const response = await postSigned(app, '/api/v1/webhooks/alertmanager', {
      receiver: 'team',
      status: 'firing',
      alerts,
    });
    expect(response.statusCode).toBe(200);
    const created = response.json().results as Array<{ incident_id: string; approval_id: string }>;
    const incidentIds = new Set(created.map((result) => result.incident_id));
    expect(incidentIds.size).toBe(40);
    for (const { approval_id } of created) await followedUp(app, approval_id);
    // Its firing alerts converge side by side, in one transaction: one job names its first
    // incident and lists them all.
    const jobs = await followUpJobs(app, INCIDENT_FOLLOW_UP_JOB.name);
    expect(jobs).toHaveLength(1);
    const listed = jobs[0]!.payload.incident_ids as string[];
    expect(new Set(listed)).toEqual(incidentIds);
    expect(listed).toHaveLength(40);
    expect(jobs[0]!.id).toBe(`follow-up-${listed[0]}`);
    await waitFor(async () => ((await followUpCompleted(app, jobs[0]!.id)) ? true : undefined), {
      what: 'the follow-up job completed',
    });
    for (const { approval_id } of created) {
      expect(await triggeredEntries(app, approval_id)).toHaveLength(1);
    }
  });

  it('runs a follow-up job queued by an earlier release, one incident per job, once', async () => {
    const { app } = await buildTestApp({ backend, env });
    const { approval_id: approvalId, incident_id: incidentId } = (
      await postSigned(app, URL, crashLoop())
    ).json();
    await followedUp(app, approvalId);
    // What an earlier release committed through the outbox: `analyze-<incident>` with
    // `{incident_id}`. Its incident was followed up already; running it repeats nothing.
    const { store } = app.services;
    const jobId = `analyze-${incidentId}`;
    await store.db
      .transaction()
      .execute((tx) =>
        insertOutboxJobs(
          tx,
          [{ name: SINGLE_FOLLOW_UP_JOB.name, payload: { incident_id: incidentId }, jobId }],
          Date.now(),
        ),
      );
    expect(await app.services.outbox.relay(jobId)).toBe(true);
    await waitFor(
      async () => {
        const row = await store.db
          .selectFrom('outbox')
          .select('completed_at')
          .where('job_id', '=', jobId)
          .executeTakeFirstOrThrow();
        return row.completed_at !== null ? true : undefined;
      },
      { what: "the earlier release's job reporting completion" },
    );
    expect(await triggeredEntries(app, approvalId)).toHaveLength(1);
  });

  it('follows every incident of a job even when one fails, then fails the job to run it again', async () => {
    const { app } = await buildTestApp({ backend, env });
    const { store } = app.services;
    await store.db
      .transaction()
      .execute((tx) =>
        insertOutboxJobs(tx, [{ name: 'test.batch', payload: {}, jobId: 'batch-job' }], Date.now()),
      );
    const followed: string[] = [];
    const followOne = async (id: string) => {
      followed.push(id);
      if (id === 'inc-b') throw new Error('database went away');
    };
    const ids = Array.from({ length: 70 }, (_, i) => (i === 1 ? 'inc-b' : `inc-${i}`));
    await expect(followNewIncidents(app.services, followOne, ids, 'batch-job')).rejects.toThrow(
      'follow-up of 1 of 70 incidents failed: database went away',
    );
    expect(followed.sort()).toEqual([...ids].sort());
    const completed = () =>
      store.db
        .selectFrom('outbox')
        .select('completed_at')
        .where('job_id', '=', 'batch-job')
        .executeTakeFirstOrThrow();
    expect((await completed()).completed_at).toBeNull();
    // Run again with the fault gone: the row is completed.
    await followNewIncidents(app.services, async () => {}, ids, 'batch-job');
    expect((await completed()).completed_at).not.toBeNull();
  });
});

/**
 * On the SQL queue (embedded, or PostgreSQL without Redis) the outbox is not needed: the job
 * is written in the incident's own transaction.
 */
describe("an incident's follow-up on the SQL queue", () => {
  it('is a job row committed with the incident, with no outbox row', async () => {
    const { app } = await buildTestApp({ backend: 'embedded', env });
    const refused = refuseEnqueues(app);
    const { approval_id: approvalId, incident_id: incidentId } = (
      await postSigned(app, URL, crashLoop())
    ).json();
    // Nothing went through enqueue, the outbox's way to the queue.
    expect(refused).not.toHaveBeenCalled();
    await followedUp(app, approvalId);
    const { db } = app.services.store;
    const jobs = await followUpJobs(app, INCIDENT_FOLLOW_UP_JOB.name);
    expect(jobs.map((job) => job.id)).toEqual([`follow-up-${incidentId}`]);
    expect(await db.selectFrom('outbox').select('job_id').execute()).toEqual([]);
  });

  it('leaves no job behind when the transaction that wrote it rolls back', async () => {
    const { app } = await buildTestApp({ backend: 'embedded', env });
    const { db } = app.services.store;
    const writer = app.services.followUps;
    const job = { name: 'test.rolled-back', payload: { n: 1 }, jobId: 'rolled-back-1' };
    await expect(
      db.transaction().execute(async (tx) => {
        await writer.add(tx, [job], Date.now());
        throw new Error('the record could not be written');
      }),
    ).rejects.toThrow('the record could not be written');
    expect(await db.selectFrom('jobs').select('id').where('id', '=', job.jobId).execute()).toEqual(
      [],
    );
    await db.transaction().execute((tx) => writer.add(tx, [job], Date.now()));
    expect(
      await db
        .selectFrom('jobs')
        .select(['id', 'max_attempts'])
        .where('id', '=', job.jobId)
        .execute(),
    ).toEqual([{ id: job.jobId, max_attempts: 20 }]);
  });
});

describe.skipIf(!storeKinds().includes('postgres'))(
  "an incident's follow-up on PostgreSQL without Redis (the SQL queue)",
  () => {
    it('is a job row committed with the incident, run by one of two replicas', async () => {
      // Two replicas on one schema; the job queue is PostgreSQL's.
      const first = await buildTestApp({ backend: 'distributed', env: { ...env, REDIS_URL: '' } });
      expect(jobsInTransaction(first.app)).toBe(true);
      const second = await buildTestApp({ reuse: first });
      const refused = refuseEnqueues(first.app);
      const { approval_id: approvalId, incident_id: incidentId } = (
        await postSigned(first.app, URL, crashLoop())
      ).json();
      expect(refused).not.toHaveBeenCalled();
      await followedUp(second.app, approvalId);
      const jobs = await followUpJobs(second.app, INCIDENT_FOLLOW_UP_JOB.name);
      expect(jobs.map((job) => job.id)).toEqual([`follow-up-${incidentId}`]);
      const { db } = second.app.services.store;
      expect(await db.selectFrom('outbox').select('job_id').execute()).toEqual([]);
      expect(await triggeredEntries(second.app, approvalId)).toHaveLength(1);
    });
  },
);

import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { followNewIncidents } from '../../src/features/escalation/incident-followup.js';
import { addFollowUpJob } from '../../src/features/outbox/outbox-relay.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * An incident and its follow-up commit together (the outbox): a queue that refuses the job,
 * or a process that dies between the commit and the enqueue, delays the follow-up (its card,
 * its repair evaluation) but cannot lose it.
 */

const URL = '/api/v1/webhooks/alerts';
const env = { SIGNAL_CONSUMER: 'false' };

function crashLoop() {
  return {
    alert_name: 'KubePodCrashLooping',
    severity: 'critical',
    source: 'prometheus',
    target_resource: 'checkout-7d9f8b6c5-x2x4z',
    // A namespace of its own: a new incident, never one converged into.
    namespace: `ns-${crypto.randomBytes(4).toString('hex')}`,
    message: 'restarting',
  };
}

/** The one stand-in here: the real queue, except that every enqueue is refused. */
function refuseEnqueues(app: FastifyInstance) {
  return vi
    .spyOn(app.services.jobs, 'enqueue')
    .mockRejectedValue(new Error('queue unavailable (test)'));
}

function triggeredEntries(app: FastifyInstance, approvalId: string) {
  return app.services.store.db
    .selectFrom('operation_log')
    .select('id')
    .where('approval_id', '=', approvalId)
    .where('type', '=', 'AUTO_REPAIR_TRIGGERED')
    .execute();
}

async function followedUp(app: FastifyInstance, approvalId: string) {
  return waitFor(
    async () => ((await triggeredEntries(app, approvalId)).length > 0 ? true : undefined),
    { what: 'the repair evaluation of the new incident', timeoutMs: 15_000 },
  );
}

describe.each(backends())("an incident's follow-up on %s", (backend) => {
  it('evaluates a dry run inside the follow-up job, once, with no job of its own', async () => {
    const { app } = await buildTestApp({ backend, env });
    const { approval_id: approvalId, incident_id: incidentId } = (
      await postSigned(app, URL, crashLoop())
    ).json();
    await followedUp(app, approvalId);
    const rows = await app.services.store.db
      .selectFrom('outbox')
      .select(['job_id', 'completed_at'])
      .where('job_id', 'in', [`follow-up-${incidentId}`, `repair-evaluate-${approvalId}`])
      .execute();
    expect(rows.map((row) => row.job_id)).toEqual([`follow-up-${incidentId}`]);
    await waitFor(
      async () => {
        const row = await app.services.store.db
          .selectFrom('outbox')
          .select('completed_at')
          .where('job_id', '=', `follow-up-${incidentId}`)
          .executeTakeFirstOrThrow();
        return row.completed_at !== null ? true : undefined;
      },
      { what: 'the follow-up job reporting completion' },
    );
    expect(await triggeredEntries(app, approvalId)).toHaveLength(1);
  });

  it('is relayed once the queue that refused it is back', async () => {
    const { app } = await buildTestApp({ backend, env });
    const refused = refuseEnqueues(app);
    const response = await postSigned(app, URL, crashLoop());
    // The incident is accepted: its follow-up is committed with it, not lost with the enqueue.
    expect(response.statusCode).toBe(200);
    const { status, approval_id: approvalId, incident_id: incidentId } = response.json();
    expect(status).toBe('created');
    // Offered again and again while the queue refuses it, and never counted as relayed.
    await waitFor(async () => (refused.mock.calls.length >= 3 ? true : undefined), {
      what: 'the relay retrying the refused job',
    });
    const row = await app.services.store.db
      .selectFrom('outbox')
      .select(['relayed_at', 'last_error', 'attempts', 'completed_at'])
      .where('job_id', '=', `follow-up-${incidentId}`)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ relayed_at: null, attempts: 0, completed_at: null });
    expect(row.last_error).toContain('queue unavailable');
    expect(await triggeredEntries(app, approvalId)).toEqual([]);

    refused.mockRestore();
    await followedUp(app, approvalId);
    expect(await triggeredEntries(app, approvalId)).toHaveLength(1);
  });

  it('happens after a restart when the process died between the commit and the enqueue', async () => {
    const first = await buildTestApp({ backend, env });
    // Nothing this process enqueues reaches the queue: as if it were killed right after
    // the incident's commit.
    refuseEnqueues(first.app);
    const alert = crashLoop();
    await postSigned(first.app, URL, alert);
    // What the dying process committed, whatever it managed to answer.
    const incident = await first.app.services.store.db
      .selectFrom('incidents')
      .select('approval_id')
      .where('namespace', '=', alert.namespace)
      .executeTakeFirst();
    const approvalId = incident?.approval_id ?? '';
    expect(approvalId).not.toBe('');
    await first.close();

    const second = await buildTestApp({ reuse: first });
    await followedUp(second.app, approvalId);
    expect(await triggeredEntries(second.app, approvalId)).toHaveLength(1);
  });
  it('is offered again when the queue took the job and lost it, and completes once', async () => {
    const { app } = await buildTestApp({ backend, env });
    // The queue answers as if it kept the job, and forgets it: Redis restarted without
    // persistence, or a job that ran out of attempts during a long outage.
    const lost = vi.spyOn(app.services.jobs, 'enqueue').mockResolvedValue('lost');
    const response = await postSigned(app, URL, crashLoop());
    const { approval_id: approvalId, incident_id: incidentId } = response.json();
    const jobId = `follow-up-${incidentId}`;
    const outbox = () =>
      app.services.store.db
        .selectFrom('outbox')
        .selectAll()
        .where('job_id', '=', jobId)
        .executeTakeFirstOrThrow();
    await waitFor(async () => ((await outbox()).relayed_at !== null ? true : undefined), {
      what: 'the relay handing the job to the queue',
    });
    const relayed = await outbox();
    expect(relayed).toMatchObject({ attempts: 1, completed_at: null });
    // Offered again only once the recheck time has come; here, time is moved on by hand.
    expect(relayed.relay_after).toBeGreaterThan(Date.now() + 60_000);
    lost.mockRestore();
    await app.services.store.db
      .updateTable('outbox')
      .set({ relay_after: 0 })
      .where('job_id', '=', jobId)
      .execute();
    await followedUp(app, approvalId);
    expect(await triggeredEntries(app, approvalId)).toHaveLength(1);
    await waitFor(async () => ((await outbox()).completed_at !== null ? true : undefined), {
      what: 'the follow-up job reporting completion',
    });
    expect((await outbox()).attempts).toBe(2);
  });

  it('gives a row up, logged and kept, after it was relayed 10 times without completing', async () => {
    const { app } = await buildTestApp({ backend, env });
    const refused = refuseEnqueues(app);
    const response = await postSigned(app, URL, crashLoop());
    const jobId = `follow-up-${response.json().incident_id}`;
    await app.services.store.db
      .updateTable('outbox')
      .set({ attempts: 10, relay_after: 0 })
      .where('job_id', '=', jobId)
      .execute();
    refused.mockRestore();
    const enqueue = vi.spyOn(app.services.jobs, 'enqueue');
    const row = await waitFor(
      async () => {
        const found = await app.services.store.db
          .selectFrom('outbox')
          .selectAll()
          .where('job_id', '=', jobId)
          .executeTakeFirstOrThrow();
        return found.gave_up_at !== null ? found : undefined;
      },
      { what: 'the row given up' },
    );
    expect(row).toMatchObject({ completed_at: null, attempts: 10 });
    expect(row.last_error).toContain('queue unavailable');
    expect(enqueue.mock.calls.filter(([, payload]) => payload.incident_ids)).toEqual([]);
  });

  it('follows the incidents opened by one delivery as one job, each evaluated once', async () => {
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
    const rows = await app.services.store.db
      .selectFrom('outbox')
      .select(['job_id', 'job_name', 'payload', 'completed_at'])
      .where('job_name', '=', 'incident.analyze')
      .execute();
    // Alertmanager alerts are taken one by one, so they may commit in more than one batch;
    // each job names its first incident and lists them all.
    const listed = rows.flatMap((row) => JSON.parse(row.payload).incident_ids as string[]);
    expect(new Set(listed)).toEqual(incidentIds);
    expect(listed).toHaveLength(40);
    for (const row of rows) {
      expect(row.job_id).toBe(`follow-up-${JSON.parse(row.payload).incident_ids[0]}`);
    }
    await waitFor(
      async () => {
        const open = await app.services.store.db
          .selectFrom('outbox')
          .select('job_id')
          .where('job_name', '=', 'incident.analyze')
          .where('completed_at', 'is', null)
          .execute();
        return open.length === 0 ? true : undefined;
      },
      { what: 'every follow-up job completed' },
    );
    for (const { approval_id } of created) {
      expect(await triggeredEntries(app, approval_id)).toHaveLength(1);
    }
  });

  it('runs a follow-up job queued by an earlier release, one incident per job', async () => {
    const { app } = await buildTestApp({ backend, env });
    const refused = refuseEnqueues(app);
    const { approval_id: approvalId, incident_id: incidentId } = (
      await postSigned(app, URL, crashLoop())
    ).json();
    const { store } = app.services;
    // What an earlier release committed: `analyze-<incident>` with `{incident_id}`.
    await store.db
      .updateTable('outbox')
      .set({
        job_id: `analyze-${incidentId}`,
        payload: JSON.stringify({ incident_id: incidentId }),
      })
      .where('job_id', '=', `follow-up-${incidentId}`)
      .execute();
    refused.mockRestore();
    await followedUp(app, approvalId);
    await waitFor(
      async () => {
        const row = await store.db
          .selectFrom('outbox')
          .select('completed_at')
          .where('job_id', '=', `analyze-${incidentId}`)
          .executeTakeFirstOrThrow();
        return row.completed_at !== null ? true : undefined;
      },
      { what: "the earlier release's job reporting completion" },
    );
  });

  it('follows every incident of a job even when one fails, then fails the job to run it again', async () => {
    const { app } = await buildTestApp({ backend, env });
    const { store } = app.services;
    await store.db
      .transaction()
      .execute((tx) =>
        addFollowUpJob(tx, { name: 'test.batch', payload: {}, jobId: 'batch-job' }, Date.now()),
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

import { describe, expect, it, vi } from 'vitest';
import {
  crashLoop,
  env,
  followedUp,
  refuseEnqueues,
  triggeredEntries,
  URL,
} from '../escalation/follow-up-fixtures.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * In front of Redis, an incident's follow-up is an outbox row committed with it and relayed
 * once committed (src/features/outbox): a queue that refuses the job, or loses it, delays the
 * follow-up but cannot lose it. On the SQL queue the job itself commits with the incident,
 * so none of this applies (test/escalation/incident-follow-up.test.ts covers both).
 */
const outboxInFront = backends().filter((backend) => backend === 'distributed');

// `each` over no backend would leave the file without a suite: name the one it would be.
describe
  .skipIf(outboxInFront.length === 0)
  .each(outboxInFront.length > 0 ? outboxInFront : (['distributed'] as const))(
  "an incident's follow-up through the outbox on %s",
  (backend) => {
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
  },
);

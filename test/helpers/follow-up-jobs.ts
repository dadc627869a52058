import type { FastifyInstance } from 'fastify';
import { vi } from 'vitest';

/**
 * Where a follow-up job is recorded depends on the queue (src/features/outbox/follow-up-writer.ts):
 * on the SQL queue (embedded) the job row itself, committed with the incident; in front of
 * Redis (distributed) its outbox row.
 */
export const jobsInTransaction = (app: FastifyInstance) =>
  app.services.jobs.enqueueInTransaction !== undefined;

/** Whether the follow-up job `jobId` reported its work done. */
export async function followUpCompleted(app: FastifyInstance, jobId: string): Promise<boolean> {
  const { db } = app.services.store;
  if (jobsInTransaction(app)) {
    const job = await db
      .selectFrom('jobs')
      .select('status')
      .where('id', '=', jobId)
      .executeTakeFirst();
    return job?.status === 'completed';
  }
  const row = await db
    .selectFrom('outbox')
    .select('completed_at')
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  return row?.completed_at !== null && row?.completed_at !== undefined;
}

/** The follow-up jobs of one name, with their payloads, wherever the queue records them. */
export async function followUpJobs(
  app: FastifyInstance,
  name: string,
): Promise<Array<{ id: string; payload: Record<string, unknown>; completed: boolean }>> {
  const { db } = app.services.store;
  if (jobsInTransaction(app)) {
    const jobs = await db
      .selectFrom('jobs')
      .select(['id', 'payload', 'status'])
      .where('name', '=', name)
      .execute();
    return jobs.map((job) => ({
      id: job.id,
      payload: JSON.parse(job.payload),
      completed: job.status === 'completed',
    }));
  }
  const rows = await db
    .selectFrom('outbox')
    .select(['job_id', 'payload', 'completed_at'])
    .where('job_name', '=', name)
    .execute();
  return rows.map((row) => ({
    id: row.job_id,
    payload: JSON.parse(row.payload),
    completed: row.completed_at !== null,
  }));
}

/**
 * The SQL queue's jobs written in a transaction from now on are committed but not due, as if
 * the process that wrote them died before running them; `release` makes them due (on any
 * app sharing the database) and wakes that app's queue. In front of Redis it does nothing.
 */
export function holdJobsInTransaction(app: FastifyInstance) {
  const { jobs } = app.services;
  const enqueueInTransaction = jobs.enqueueInTransaction?.bind(jobs);
  if (enqueueInTransaction) {
    vi.spyOn(jobs, 'enqueueInTransaction').mockImplementation(async (tx, list) => {
      await enqueueInTransaction(tx, list);
      const ids = list.map((job) => job.jobId);
      await tx.updateTable('jobs').set({ run_after: 8.64e15 }).where('id', 'in', ids).execute();
    });
  }
  return {
    async release(on: FastifyInstance, jobId: string, name: string) {
      if (!enqueueInTransaction) return;
      const { store, jobs: queue } = on.services;
      await store.db.updateTable('jobs').set({ run_after: 0 }).where('id', '=', jobId).execute();
      queue.wake?.([name]);
    },
  };
}

/**
 * A queue outage for the jobs named `name`, wherever the queue records them: in front of
 * Redis the queue refuses them (the outbox keeps them); on the SQL queue, where a job
 * commits with its record, they are committed but not due. `end` lifts it: the refused are
 * relayed by the outbox as it retries, the held made due and the queue woken.
 */
export function queueOutage(app: FastifyInstance, name: string) {
  const { jobs } = app.services;
  const enqueue = jobs.enqueue.bind(jobs);
  const refused = vi.spyOn(jobs, 'enqueue').mockImplementation(async (job, ...rest) => {
    if (job === name) throw new Error('queue unavailable (test)');
    return enqueue(job, ...rest);
  });
  const enqueueInTransaction = jobs.enqueueInTransaction?.bind(jobs);
  const held = enqueueInTransaction
    ? vi.spyOn(jobs, 'enqueueInTransaction').mockImplementation(async (tx, list) => {
        await enqueueInTransaction(tx, list);
        const ids = list.filter((job) => job.name === name).map((job) => job.jobId);
        if (ids.length === 0) return;
        await tx.updateTable('jobs').set({ run_after: 8.64e15 }).where('id', 'in', ids).execute();
      })
    : undefined;
  return {
    /** Whether a job of `name` was refused or held back. */
    async struck(): Promise<boolean> {
      if (held) return (await followUpJobs(app, name)).length > 0;
      return refused.mock.calls.some(([job]) => job === name);
    },
    async end(): Promise<void> {
      refused.mockRestore();
      if (!held) return;
      held.mockRestore();
      const ids = (await followUpJobs(app, name)).map((job) => job.id);
      if (ids.length === 0) return;
      await app.services.store.db
        .updateTable('jobs')
        .set({ run_after: 0 })
        .where('id', 'in', ids)
        .execute();
      jobs.wake?.([name]);
    },
  };
}

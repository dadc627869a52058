import type { FastifyInstance } from 'fastify';

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

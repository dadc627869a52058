import type { Static, TSchema } from 'typebox';
import type { Services } from '../../services.js';
import { typedJob } from '../../support/typed-job.js';
import type { OutboxJob } from './outbox-records.js';

/**
 * A kind of background job: its name, its payload's schema and its id, declared once beside
 * its worker. Writers import the kind and commit jobs of it with their records through the
 * follow-up writer (`Services.followUps`), the one way a job is committed with what it
 * follows; the worker registers through `processJobs`, which takes payloads by the schema.
 */
export interface JobKind<S extends TSchema> {
  /** No ':' (JobQueue.process). */
  name: string;
  payload: S;
  /** One id per record the job follows, so a job written twice runs once. No ':' (BullMQ). */
  idOf(payload: Static<S>): string;
}

export function jobKind<S extends TSchema>(
  name: string,
  payload: S,
  idOf: (payload: Static<S>) => string,
): JobKind<S> {
  return { name, payload, idOf };
}

/** A job of `kind`, as the follow-up writer commits and relays it. */
export function jobOf<S extends TSchema>(kind: JobKind<S>, payload: Static<S>): OutboxJob {
  return {
    name: kind.name,
    payload: payload as Record<string, unknown>,
    jobId: kind.idOf(payload),
  };
}

/**
 * Registers the worker of `kind`; call before `services.jobs.start()`. A payload that does
 * not match the kind's schema is logged and dropped (support/typed-job.ts).
 */
export function processJobs<S extends TSchema>(
  services: Pick<Services, 'jobs' | 'log'>,
  kind: JobKind<S>,
  work: (payload: Static<S>) => Promise<void>,
  concurrency: number,
): void {
  services.jobs.process(
    kind.name,
    typedJob(kind.name, kind.payload, services.log, work),
    concurrency,
  );
}

import type { Tx } from './store.js';

/**
 * Durable background jobs: an enqueued job survives a restart and runs at least once, so
 * handlers must tolerate a repeat (a retry, or a run cut short by a dying process).
 */
export interface JobOptions {
  /**
   * A job with the same id that is already queued or running is not enqueued again (its
   * id is returned); a finished one (completed or failed) is replaced, so the id runs again.
   */
  jobId?: string;
  /** How often a failing job is tried in all (default 3), with exponential backoff between. */
  attempts?: number;
}

/** Thrown by `enqueue` once `close()` was called: the caller's record keeps the job (outbox). */
export class JobQueueClosedError extends Error {
  constructor() {
    super('jobs: queue is closed');
    this.name = 'JobQueueClosedError';
  }
}

export type JobHandler = (payload: Record<string, unknown>) => Promise<void>;

/** A job written in the transaction of the record it follows (JobQueue.enqueueInTransaction). */
export interface TransactionalJob {
  name: string;
  payload: Record<string, unknown>;
  jobId: string;
  attempts: number;
}

export interface JobQueue {
  /** Returns the job's id: options.jobId, or a generated one. */
  enqueue(name: string, payload: Record<string, unknown>, options?: JobOptions): Promise<string>;
  /**
   * Only on a queue kept in the store's own database (the SQL one): writes the jobs in the
   * caller's transaction, so they commit with the records they follow and need no outbox. An
   * id still queued or running is left as it is. Once committed, `wake` runs them now rather
   * than at the next poll.
   */
  enqueueInTransaction?(tx: Tx, jobs: readonly TransactionalJob[]): Promise<void>;
  /** After an enqueueInTransaction commit: this process and the others look for these jobs. */
  wake?(names: readonly string[]): void;
  /**
   * Registers the handler for `name` (no ':' in it); at most `concurrency` of its jobs run at
   * once here.
   */
  process(name: string, handler: JobHandler, concurrency: number): void;
  /**
   * Calls `listener` each time the queue's storage is reached again after it restarted: jobs
   * queued before may be gone (Redis without persistence). A reconnect to the same running
   * server is not reported. Queues that cannot lose jobs that way (the SQL one) never call it.
   */
  onReconnected?(listener: () => void): void;
  /** Starts running registered handlers, resuming jobs left unfinished by an earlier process. */
  start(): Promise<void>;
  /**
   * Stops taking new jobs and waits for running ones to settle, for a bounded time (10 s by
   * default); a job it gives up on is resumed by another process or after a restart. Do not
   * enqueue after close.
   */
  close(): Promise<void>;
}

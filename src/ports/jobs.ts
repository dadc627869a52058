/** Durable background jobs: an enqueued job survives a restart and runs at least once. */
export interface JobOptions {
  /** A job with the same id that is already queued or running is not enqueued again. */
  jobId?: string;
  /** How often a failing job is tried in all (default 3). */
  attempts?: number;
}

export type JobHandler = (payload: Record<string, unknown>) => Promise<void>;

export interface JobQueue {
  enqueue(name: string, payload: Record<string, unknown>, options?: JobOptions): Promise<string>;
  /** Registers the handler for `name`; at most `concurrency` of its jobs run at once here. */
  process(name: string, handler: JobHandler, concurrency: number): void;
  /** Starts running registered handlers, resuming jobs left unfinished by an earlier process. */
  start(): Promise<void>;
  /** Waits for running jobs to settle and stops taking new ones. */
  close(): Promise<void>;
}

import crypto from 'node:crypto';
import type { Services } from '../../services.js';
import { publishEvent } from '../events/feed-events.js';
import { findIncident } from '../incidents/incident-records.js';
import type { AnalysisRequest } from './analysis-request.js';
import { loadHistory, subjectOf } from './analysis-subject.js';
import type { Expert } from './analysis-types.js';
import { buildConsensus, type ExpertFailure } from './consensus.js';
import { runExperts } from './experts.js';
import {
  busMessage,
  PROGRESS,
  progressAfter,
  type TaskEvent,
  taskTopic,
} from './progress-events.js';
import {
  changeTask,
  type EventSpec,
  findTask,
  renewTaskLease,
  type TaskChange,
} from './task-records.js';

/** The services this file's functions use. */
type RunAnalysisServices = Pick<Services, 'bus' | 'clock' | 'feed' | 'log' | 'store'>;

/**
 * How long a running task is held without renewal (renewed every third of it). A task still
 * RUNNING past its lease was left by a process that died; the sweep marks it FAILED.
 */
export const TASK_LEASE_MS = 30_000;

/** Why a task was marked FAILED without finishing (docs/api.md, Analysis tasks: an error saying it was interrupted). */
export const INTERRUPTED = {
  lease: 'Analysis was interrupted: the process running it stopped before it finished',
  shutdown: 'Analysis was interrupted: the service shut down while it was running',
} as const;

/** Another writer (the sweep) finished the task first; this run has nothing left to record. */
class TaskLost extends Error {}

/** Publishes a recorded event; a lost publish is only a late stream, which catches up from the table. */
export async function publishTaskEvent(
  services: RunAnalysisServices,
  event: TaskEvent,
): Promise<void> {
  publishEvent(services, 'analysis.updated', {
    task_id: event.task_id,
    state: event.state,
    progress: event.progress,
    agents_completed: event.agents_completed,
    total_agents: event.total_agents,
  });
  try {
    await services.bus.publish(taskTopic(event.task_id), busMessage(event, Date.now()));
  } catch (error) {
    services.log.warn({ err: error, task: event.task_id }, 'analysis: event not published');
  }
}

export interface AnalysisRunner {
  run(taskId: string): Promise<void>;
  /** Interrupts the analyses running here, marking them FAILED, and waits for them. */
  stop(): Promise<void>;
}

export function createAnalysisRunner(
  services: RunAnalysisServices,
  experts: readonly Expert[],
): AnalysisRunner {
  const { store, clock, log } = services;
  const db = store.db;
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  let stopping = false;

  /** Records a change of a running task with its event, then publishes the event. */
  async function step(taskId: string, change: TaskChange, event: Omit<EventSpec, 'now'>) {
    const now = clock.now();
    const recorded = await changeTask(
      db,
      taskId,
      { state: 'RUNNING' },
      { locked_until: now + TASK_LEASE_MS, ...change },
      { ...event, now },
    );
    if (!recorded) throw new TaskLost();
    await publishTaskEvent(services, recorded);
  }

  async function analyse(taskId: string, signal: AbortSignal): Promise<void> {
    const task = await findTask(db, taskId);
    if (!task) throw new TaskLost();
    const request = JSON.parse(task.request) as AnalysisRequest;
    const now = clock.now();
    const incident = request.incident_id ? await findIncident(db, request.incident_id) : undefined;
    if (request.incident_id && !incident)
      throw new Error(`Incident not found: ${request.incident_id}`);
    const subject = subjectOf(
      request,
      incident,
      await loadHistory(db, request, incident, now),
      now,
    );

    let settled = 0;
    let succeeded = 0;
    const outcomes = await runExperts(experts, subject, signal, async (outcome) => {
      settled += 1;
      if (outcome.opinion) succeeded += 1;
      await step(
        taskId,
        {
          progress: progressAfter(settled, experts.length),
          agents_completed: succeeded,
          current_step: outcome.opinion
            ? `${outcome.agent} expert completed`
            : `${outcome.agent} expert failed: ${outcome.error}`,
        },
        // A failed expert is progress, not a completed agent: agents_completed counts opinions.
        outcome.opinion ? { type: 'agent_completed', agent: outcome.agent } : { type: 'progress' },
      );
    });
    if (signal.aborted) throw signal.reason;
    const opinions = outcomes.flatMap((outcome) => (outcome.opinion ? [outcome.opinion] : []));
    const failures: ExpertFailure[] = outcomes.flatMap((outcome) =>
      outcome.error !== undefined ? [{ agent: outcome.agent, error: outcome.error }] : [],
    );
    if (opinions.length === 0) {
      const reasons = failures.map((failure) => `${failure.agent}: ${failure.error}`).join('; ');
      throw new Error(`All ${experts.length} experts failed: ${reasons}`);
    }
    const consensus = buildConsensus(opinions, failures, `consensus-${crypto.randomUUID()}`);
    await step(
      taskId,
      {
        state: 'COMPLETED',
        progress: PROGRESS.done,
        current_step: 'Analysis complete',
        result: JSON.stringify(consensus),
        completed_at: clock.now(),
        locked_until: null,
      },
      { type: 'completed' },
    );
  }

  async function fail(taskId: string, reason: string): Promise<void> {
    try {
      await step(
        taskId,
        {
          state: 'FAILED',
          current_step: 'Analysis failed',
          error: reason,
          completed_at: clock.now(),
          locked_until: null,
        },
        { type: 'failed' },
      );
    } catch (error) {
      if (!(error instanceof TaskLost)) throw error;
    }
  }

  async function claimAndAnalyse(taskId: string, controller: AbortController): Promise<void> {
    const now = clock.now();
    const started = await changeTask(
      db,
      taskId,
      { state: 'PENDING' },
      {
        state: 'RUNNING',
        started_at: now,
        progress: PROGRESS.started,
        current_step: `Consulting ${experts.length} experts`,
        locked_until: now + TASK_LEASE_MS,
      },
      { type: 'progress', now },
    );
    // Not pending: a repeated job (at-least-once delivery) for a task already run or failed.
    if (!started) return;
    const renewal = setInterval(() => {
      renewTaskLease(db, taskId, clock.now() + TASK_LEASE_MS).then(
        (held) => {
          if (!held) controller.abort(new TaskLost());
        },
        (error) => log.warn({ err: error, task: taskId }, 'analysis: lease renewal failed'),
      );
    }, TASK_LEASE_MS / 3);
    renewal.unref();
    try {
      await publishTaskEvent(services, started);
      await analyse(taskId, controller.signal);
    } catch (error) {
      if (error instanceof TaskLost) return;
      const reason = controller.signal.aborted
        ? INTERRUPTED.shutdown
        : (error as Error).message || String(error);
      await fail(taskId, reason);
    } finally {
      clearInterval(renewal);
    }
  }

  async function run(taskId: string): Promise<void> {
    // Refused, so the job is retried by another replica or after the restart: a task claimed
    // now would only be failed as interrupted a moment later.
    if (stopping) throw new Error('analysis: the service is shutting down');
    const controller = new AbortController();
    const done = claimAndAnalyse(taskId, controller).finally(() => running.delete(taskId));
    running.set(taskId, { controller, done });
    await done;
  }

  return {
    run,
    async stop() {
      stopping = true;
      const runs = [...running.values()];
      for (const { controller } of runs) controller.abort(new Error(INTERRUPTED.shutdown));
      await Promise.allSettled(runs.map((entry) => entry.done));
    },
  };
}

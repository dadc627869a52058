import { describe, expect, it } from 'vitest';
import { INTERRUPTED } from '../../src/features/analysis/run-analysis.js';
import { insertTask } from '../../src/features/analysis/task-records.js';
import { tempDir } from '../helpers/backends.js';
import { backends, buildTestApp, TestClock } from '../helpers/build-app.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startUpstream } from '../helpers/upstreams.js';
import { waitFor } from '../helpers/wait-for.js';
import { analyze, expertModel, statusOf, waitForState } from './analysis-helpers.js';

const MANUAL = { severity: 'P2', affected_services: ['cart'] };
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

describe('a task whose process died', () => {
  it('is marked FAILED as interrupted when the service starts again', async () => {
    const llm = await startUpstream(() => new Promise(() => {}));
    const env = {
      DATA_DIR: tempDir(),
      PORT: '0',
      LOG_LEVEL: 'info',
      APP_ENV: 'test',
      SIGNAL_CONSUMER: 'false',
      ANALYZER: 'openai',
      LLM_BASE_URL: llm.url,
    };
    const { child, url } = await startServerProcess(env);
    const response = await fetch(`${url}/api/v1/agents/analyze`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(MANUAL),
    });
    const { task_id: taskId } = (await response.json()) as { task_id: string };
    await waitFor(async () => (llm.requests.length > 0 ? true : undefined), {
      what: 'an expert call',
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    // Started after the dead process's lease ran out: the start-up sweep fails the task.
    const later = new TestClock(Date.now() + 5 * MINUTE);
    const { app } = await buildTestApp({
      env: { ...env, LOG_LEVEL: 'silent', PORT: '8080' },
      clock: later,
    });
    const status = await waitForState(app, taskId, 'FAILED');
    expect(status).toMatchObject({
      error: INTERRUPTED.lease,
      current_step: 'Analysis interrupted',
      completed_at: new Date(later.now()).toISOString(),
    });
  });
});

describe.each(backends())('interrupted tasks (%s)', (backend) => {
  it('another replica leaves a task alone while its lease holds, and fails it once expired', async () => {
    const model = await expertModel({ held: true });
    const runner = await buildTestApp({
      backend,
      env: { SIGNAL_CONSUMER: 'false', ANALYZER: 'openai', LLM_BASE_URL: model.upstream.url },
    });
    const taskId = (await analyze(runner.app, MANUAL)).json().task_id as string;
    await waitForState(runner.app, taskId, 'RUNNING');

    const soon = await buildTestApp({ reuse: runner, clock: new TestClock(Date.now() + 10_000) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await statusOf(soon.app, taskId)).state).toBe('RUNNING');
    await soon.close();

    // As seen from a clock past the lease, the runner has stopped renewing: it is failed.
    const late = await buildTestApp({
      reuse: runner,
      clock: new TestClock(Date.now() + 5 * MINUTE),
    });
    const failed = await waitForState(late.app, taskId, 'FAILED');
    expect(failed.error).toBe(INTERRUPTED.lease);
    // The first runner's experts answer late: nothing it records overrides the failure.
    model.release();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await statusOf(runner.app, taskId)).toMatchObject({
      state: 'FAILED',
      error: INTERRUPTED.lease,
    });
  });

  it('a shutdown mid-analysis marks the task FAILED as interrupted', async () => {
    const model = await expertModel({ held: true });
    const first = await buildTestApp({
      backend,
      env: { SIGNAL_CONSUMER: 'false', ANALYZER: 'openai', LLM_BASE_URL: model.upstream.url },
    });
    const taskId = (await analyze(first.app, MANUAL)).json().task_id as string;
    await waitForState(first.app, taskId, 'RUNNING');
    await first.close();
    const again = await buildTestApp({ reuse: first });
    expect(await statusOf(again.app, taskId)).toMatchObject({
      state: 'FAILED',
      error: INTERRUPTED.shutdown,
    });
  });
});

describe.each(backends())('retention (%s)', (backend) => {
  it('keeps a finished task 7 days, then the sweep purges it with its events', async () => {
    const clock = new TestClock();
    const first = await buildTestApp({ backend, clock, env: { SIGNAL_CONSUMER: 'false' } });
    const taskId = (await analyze(first.app, MANUAL)).json().task_id as string;
    await waitForState(first.app, taskId, 'COMPLETED');
    const finishedAt = clock.now();
    // A task whose job was lost: pending for ever, unless retention removes it too.
    await insertTask(first.app.services.store.db, {
      id: 'task-lost',
      request: { severity: 'P2', affected_services: ['cart'] },
      incidentId: null,
      now: finishedAt,
    });
    await first.close();

    const day7 = await buildTestApp({ reuse: first, clock: new TestClock(finishedAt + 7 * DAY) });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await day7.app.inject(`/api/v1/agents/result/${taskId}`)).json().state).toBe(
      'COMPLETED',
    );
    expect((await statusOf(day7.app, 'task-lost')).state).toBe('PENDING');
    await day7.close();

    const after = await buildTestApp({
      reuse: first,
      clock: new TestClock(finishedAt + 7 * DAY + 1),
    });
    await waitFor(
      async () =>
        (await after.app.inject(`/api/v1/agents/status/${taskId}`)).statusCode === 404
          ? true
          : undefined,
      { what: 'the purge' },
    );
    expect((await after.app.inject(`/api/v1/agents/result/${taskId}`)).statusCode).toBe(404);
    expect((await after.app.inject('/api/v1/agents/status/task-lost')).statusCode).toBe(404);
    const events = await after.app.services.store.db
      .selectFrom('analysis_task_events')
      .select('seq')
      .where('task_id', '=', taskId)
      .execute();
    expect(events).toEqual([]);
  });
});

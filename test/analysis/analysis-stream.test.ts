import http from 'node:http';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { busMessage, taskTopic } from '../../src/features/analysis/progress-events.js';
import { changeTask } from '../../src/features/analysis/task-records.js';
import { backends, buildTestApp } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';
import { analyze, expertModel, followStream, type Json, listen } from './analysis-helpers.js';

const MANUAL = {
  severity: 'P2',
  affected_services: ['cart'],
  alert_names: ['KubePodCrashLooping'],
};

/** An app whose experts wait for `model.release()`, listening on a loopback port. */
async function heldApp(backend: 'embedded' | 'distributed') {
  const model = await expertModel({ held: true });
  const test = await buildTestApp({
    backend,
    env: { SIGNAL_CONSUMER: 'false', ANALYZER: 'openai', LLM_BASE_URL: model.upstream.url },
  });
  return { ...test, model, base: await listen(test.app) };
}

function streamUrl(base: string, taskId: string) {
  return `${base}/api/v1/agents/stream/${taskId}`;
}

/** Checks one full run as a client saw it, from the status event to `completed`. */
function expectWholeRun(events: { id: string; data: Json }[], taskId: string) {
  const [first, ...rest] = events;
  expect(first!.data).toMatchObject({ type: 'status', task_id: taskId, total_agents: 4 });
  // Numbered without a gap from where the status event stood.
  expect(rest.map((event) => Number(event.id))).toEqual(
    rest.map((_, i) => Number(first!.id) + i + 1),
  );
  const progress = rest.map((event) => event.data.progress as number);
  expect(progress).toEqual([...progress].sort((a, b) => a - b));
  expect(progress.at(-1)).toBe(100);
  const agents = rest.filter((event) => event.data.type === 'agent_completed');
  expect(agents.map((event) => event.data.agents_completed)).toEqual([1, 2, 3, 4]);
  expect(new Set(agents.map((event) => event.data.agent))).toEqual(
    new Set(['stability', 'security', 'cost', 'performance']),
  );
  for (const event of rest) {
    expect(Object.keys(event.data)).toEqual(
      expect.arrayContaining([
        'type',
        'task_id',
        'state',
        'progress',
        'current_step',
        'agents_completed',
        'total_agents',
      ]),
    );
  }
  expect(rest.at(-1)!.data).toMatchObject({ type: 'completed', state: 'COMPLETED' });
}

describe.each(backends())('analysis stream (%s)', (backend) => {
  it('sends the status first, every event live, and ends on completion', async () => {
    const { app, model, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    const client = followStream(streamUrl(base, taskId));
    await client.waitForEvent((data) => data.type === 'status');
    model.release();
    await client.ended;
    expectWholeRun(client.events, taskId);
    // Live events carry when they were published (the benchmark measures delivery with it).
    expect(client.events.at(-1)!.data.published_at).toEqual(expect.any(Number));
  });

  it('fills a gap in what the bus delivers from the stored events', async () => {
    const { app, model, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    const client = followStream(streamUrl(base, taskId));
    await client.waitForEvent((data) => data.type === 'status');
    // Two changes recorded, only the second one heard (as when a Redis subscriber reconnects).
    const { store, bus, clock } = app.services;
    const record = (step: string) =>
      changeTask(
        store.db,
        taskId,
        { state: 'RUNNING' },
        { current_step: step },
        {
          type: 'progress',
          now: clock.now(),
        },
      );
    await record('not published');
    const heard = await record('published');
    await bus.publish(taskTopic(taskId), busMessage(heard!, Date.now()));
    await client.waitForEvent((data) => data.current_step === 'published');
    const steps = client.events.map((event) => event.data.current_step);
    expect(steps.slice(-2)).toEqual(['not published', 'published']);
    model.release();
    await client.ended;
    expectWholeRun(client.events, taskId);
  });

  it('answers with the three headers, and 404 for an unknown task', async () => {
    const { app, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    const controller = new AbortController();
    const response = await fetch(streamUrl(base, taskId), { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('connection')).toBe('keep-alive');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    controller.abort();
    const missing = await fetch(streamUrl(base, 'task-nope'));
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: 'Task not found: task-nope' });
  });

  it('resumes after Last-Event-ID, and a client with every event gets 204', async () => {
    const { app, model, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    model.release();
    const first = followStream(streamUrl(base, taskId), '0');
    await first.ended;
    expectWholeRun(first.events, taskId);
    const last = first.events.at(-1)!.id;

    const resumed = followStream(streamUrl(base, taskId), '3');
    await resumed.ended;
    expect(resumed.events[0]!).toMatchObject({ id: '3', data: { type: 'status' } });
    expect(resumed.events.slice(1).map((event) => event.id)).toEqual(
      first.events.slice(4).map((event) => event.id),
    );
    expect(resumed.events.slice(1).map((event) => event.data.type)).toEqual(
      first.events.slice(4).map((event) => event.data.type),
    );

    const done = followStream(streamUrl(base, taskId), last);
    await done.ended;
    expect(done.events).toEqual([]);
    expect(done.source.readyState).toBe(done.source.CLOSED);
  });

  it('a new client of a finished task gets its final status and the stream ends', async () => {
    const { app, model, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    model.release();
    await waitFor(async () =>
      (await app.inject(`/api/v1/agents/status/${taskId}`)).json().state === 'COMPLETED'
        ? true
        : undefined,
    );
    const client = followStream(streamUrl(base, taskId));
    await client.ended;
    expect(client.events).toHaveLength(1);
    expect(client.events[0]!.data).toMatchObject({
      type: 'status',
      state: 'COMPLETED',
      progress: 100,
      agents_completed: 4,
    });
  });

  it('ends open streams when the app closes', async () => {
    const { app, base, close } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    const client = followStream(streamUrl(base, taskId));
    await client.opened;
    const started = Date.now();
    await close();
    await client.ended;
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe.skipIf(!backends().includes('distributed'))('analysis stream on Redis', () => {
  it('a second replica streams a task the first one runs', async () => {
    const runner = await heldApp('distributed');
    const taskId = (await analyze(runner.app, MANUAL)).json().task_id as string;
    // The first replica has claimed the task: its experts are waiting on the model.
    await waitFor(async () => (runner.model.upstream.requests.length >= 3 ? true : undefined));
    const other = await buildTestApp({ reuse: runner });
    const client = followStream(streamUrl(await listen(other.app), taskId));
    await client.waitForEvent((data) => data.type === 'status');
    runner.model.release();
    await client.ended;
    expect(client.events[0]!.data).toMatchObject({ type: 'status', state: 'RUNNING' });
    expect(client.events.at(-1)!.data).toMatchObject({ type: 'completed', progress: 100 });
  });

  it('a client that disconnects frees its subscription at once', async () => {
    const { app, base, env } = await heldApp('distributed');
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    const redis = new Redis(env.REDIS_URL!);
    const channel = `${env.REDIS_KEY_PREFIX}${taskTopic(taskId)}`;
    const subscribers = async () =>
      Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]);
    const request = http.get(streamUrl(base, taskId));
    await waitFor(async () => ((await subscribers()) === 1 ? true : undefined));
    request.destroy();
    await waitFor(async () => ((await subscribers()) === 0 ? true : undefined), {
      timeoutMs: 1_000,
    });
    redis.disconnect();
  });
});

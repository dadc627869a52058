import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { busMessage, taskTopic } from '../../src/features/analysis/progress-events.js';
import { changeTask } from '../../src/features/analysis/task-records.js';
import { backends, buildTestApp } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  analyze,
  expertModel,
  followStream,
  type Json,
  listen,
  type StreamClient,
  waitForState,
} from './analysis-helpers.js';

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

const LIVE_MARKER = 'test-live-marker';

/**
 * Resolves once the stream writes what the bus carries as it comes. Until then (its stored
 * events still being read) it holds what it hears, and events stored meanwhile reach the
 * client from the table, without `published_at`. A message without a number is held like
 * any other and written once the stream is live, so hearing it back proves the stream live.
 * (This leans on the hub forwarding a message it cannot number: if it ever drops such
 * messages, this times out waiting for the marker.)
 */
async function untilLive(app: FastifyInstance, client: StreamClient, taskId: string) {
  await app.services.bus.publish(taskTopic(taskId), JSON.stringify({ type: LIVE_MARKER }));
  await client.waitForEvent((data) => data.type === LIVE_MARKER);
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

const STATE_ORDER = new Map([
  ['PENDING', 0],
  ['RUNNING', 1],
  ['COMPLETED', 2],
  ['FAILED', 2],
]);

/** CONTRACT, Analysis tasks: whatever the client saw, the task's state never went backwards. */
function expectNeverBackwards(events: { id: string; data: Json }[]) {
  const states = events.map((event) => STATE_ORDER.get(event.data.state as string));
  expect(states).toEqual([...states].sort((a, b) => a! - b!));
  const progress = events.map((event) => event.data.progress as number);
  expect(progress).toEqual([...progress].sort((a, b) => a - b));
  const agents = events.map((event) => event.data.agents_completed as number);
  expect(agents).toEqual([...agents].sort((a, b) => a - b));
  const ids = events.map((event) => Number(event.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
}

/**
 * A resumed run: the missed events from `after` + 1 on, in order and without a gap, with the
 * status event after them (never before: it is newer than they are).
 */
function expectResumedRun(events: { id: string; data: Json }[], taskId: string, after: number) {
  const statusAt = events.findIndex((event) => event.data.type === 'status');
  expect(statusAt).toBeGreaterThan(0);
  const replayed = events.slice(0, statusAt);
  expect(replayed.map((event) => Number(event.id))).toEqual(replayed.map((_, i) => after + i + 1));
  expect(replayed.every((event) => event.data.type !== 'status')).toBe(true);
  expect(events[statusAt]!.id).toBe(replayed.at(-1)!.id);
  expect(events[statusAt]!.data).toMatchObject({
    type: 'status',
    task_id: taskId,
    state: replayed.at(-1)!.data.state,
    progress: replayed.at(-1)!.data.progress,
  });
  expectNeverBackwards(events);
}

describe.each(backends())('analysis stream (%s)', (backend) => {
  it('sends the status first, every event live, and ends on completion', async () => {
    const { app, model, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    const client = followStream(streamUrl(base, taskId));
    await client.waitForEvent((data) => data.type === 'status');
    await untilLive(app, client, taskId);
    model.release();
    await client.ended;
    const marker = client.events.findIndex((event) => event.data.type === LIVE_MARKER);
    expectWholeRun(
      client.events.filter((_, index) => index !== marker),
      taskId,
    );
    // Live events carry when they were published (the benchmark measures delivery with it).
    // Not the last one: the task's re-read after an event can find it finished first, and the
    // stream then sends `completed` from the table and ends.
    expect(client.events[marker + 1]!.data.published_at).toEqual(expect.any(Number));
  });

  it('fills a gap in what the bus delivers from the stored events', async () => {
    const { app, model, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    const client = followStream(streamUrl(base, taskId));
    await client.waitForEvent((data) => data.type === 'status');
    // The changes below apply to a running task only: until its job is claimed (later under
    // load, on a queue in Redis) they would change nothing, and nothing would be heard.
    await waitForState(app, taskId, 'RUNNING');
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
    expect(await record('not published')).toBeDefined();
    const heard = await record('published');
    if (!heard) throw new Error('the second change was not recorded');
    await bus.publish(taskTopic(taskId), busMessage(heard, Date.now()));
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
    expect(await missing.json()).toEqual({
      detail: 'Task not found: task-nope',
      code: 'task_not_found',
    });
  });

  it('resumes after Last-Event-ID, and a client with every event gets 204', async () => {
    const { app, model, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    model.release();
    await waitForState(app, taskId, 'COMPLETED');
    // Every event replayed in order, then the status (COMPLETED) last: before, the status came
    // first and the replayed RUNNING events took the client's state backwards.
    const first = followStream(streamUrl(base, taskId), '0');
    await first.ended;
    expectResumedRun(first.events, taskId, 0);
    expectWholeRun(
      [
        { id: '0', data: { type: 'status', task_id: taskId, total_agents: 4 } },
        ...first.events.slice(0, -1),
      ],
      taskId,
    );
    expect(first.events.at(-1)!.data).toMatchObject({ type: 'status', state: 'COMPLETED' });
    const last = first.events.at(-1)!.id;

    const resumed = followStream(streamUrl(base, taskId), '3');
    await resumed.ended;
    expectResumedRun(resumed.events, taskId, 3);
    expect(resumed.events.at(-1)!).toMatchObject({ id: last, data: { type: 'status' } });
    expect(resumed.events.slice(0, -1).map((event) => event.id)).toEqual(
      first.events.slice(3, -1).map((event) => event.id),
    );
    expect(resumed.events.slice(0, -1).map((event) => event.data.type)).toEqual(
      first.events.slice(3, -1).map((event) => event.data.type),
    );

    const done = followStream(streamUrl(base, taskId), last);
    await done.ended;
    expect(done.events).toEqual([]);
    expect(done.source.readyState).toBe(done.source.CLOSED);
  });

  it('resumes a running task: missed events in order, the status, then live events', async () => {
    const { app, model, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    await waitForState(app, taskId, 'RUNNING');
    const client = followStream(streamUrl(base, taskId), '0');
    await client.waitForEvent((data) => data.type === 'status');
    expect(client.events[0]!.data.type).not.toBe('status');
    expect(client.events.find((event) => event.data.type === 'status')!.data).toMatchObject({
      state: 'RUNNING',
    });
    model.release();
    await client.ended;
    expectResumedRun(client.events, taskId, 0);
    expect(client.events.at(-1)!.data).toMatchObject({ type: 'completed', state: 'COMPLETED' });
  });

  it('a client that is up to date gets the status first, as a new client does', async () => {
    const { app, model, base } = await heldApp(backend);
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    const status = await waitForState(app, taskId, 'RUNNING');
    const seen = (
      await app.services.store.db
        .selectFrom('analysis_tasks')
        .select('last_event_seq')
        .where('id', '=', taskId)
        .executeTakeFirstOrThrow()
    ).last_event_seq;
    const client = followStream(streamUrl(base, taskId), String(seen));
    await client.waitForEvent((data) => data.type === 'status');
    expect(client.events[0]!).toMatchObject({
      id: String(seen),
      data: { type: 'status', state: status.state },
    });
    model.release();
    await client.ended;
    expectWholeRun(client.events, taskId);
    expectNeverBackwards(client.events);
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
    // Destroying the request below ends it with 'socket hang up': expected, not a failure.
    request.on('error', () => undefined);
    await waitFor(async () => ((await subscribers()) === 1 ? true : undefined));
    request.destroy();
    await waitFor(async () => ((await subscribers()) === 0 ? true : undefined), {
      timeoutMs: 1_000,
    });
    redis.disconnect();
  });

  it('a client that leaves while its task is being read frees its subscription too', async () => {
    const { app, base, env } = await heldApp('distributed');
    const taskId = (await analyze(app, MANUAL)).json().task_id as string;
    const redis = new Redis(env.REDIS_URL!);
    const channel = `${env.REDIS_KEY_PREFIX}${taskTopic(taskId)}`;
    const subscribers = async () =>
      Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]);
    // Each request is dropped as soon as it is sent: some leave before the stream starts.
    for (let round = 0; round < 30; round += 1) {
      const request = http.get(streamUrl(base, taskId));
      request.on('error', () => undefined);
      request.on('finish', () => setImmediate(() => request.destroy()));
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
    await waitFor(async () => ((await subscribers()) === 0 ? true : undefined), {
      timeoutMs: 2_000,
    });
    redis.disconnect();
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, type TestApp, TestClock } from '../helpers/build-app.js';
import { type Json, openIncident, waitForState } from './analysis-helpers.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const CONSOLE_TOKEN = 'task-list-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${CONSOLE_TOKEN}` };

/** CONTRACT, Operator console: analyses are kept and listed, each at a URL of its own. */
describe.each(backends())('GET /agents/tasks on %s', (backend) => {
  const clock = new TestClock();
  let app: TestApp['app'];
  let incident: string;
  let other: string;
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      backend,
      clock,
      env: { SIGNAL_CONSUMER: 'false', CONSOLE_TOKEN },
    }));
    incident = await openIncident(app, { namespace: 'tasks', target_resource: 'api-1' });
    other = await openIncident(app, { namespace: 'tasks', target_resource: 'web-1' });
  });
  const post = async (body: Json) => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/agents/analyze',
      payload: body,
      headers: AUTH,
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().task_id as string;
  };
  const list = async (query: string) => {
    const response = await app.inject({ url: `/api/v1/agents/tasks?${query}`, headers: AUTH });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as Json;
  };
  const taskIds = (page: Json) => page.items.map((item: Json) => item.task_id);

  it('lists an incident’s analyses newest first, with state and progress', async () => {
    const first = await post({ incident_id: incident });
    clock.advance(1000);
    const second = await post({ incident_id: incident });
    clock.advance(1000);
    await post({ incident_id: other });
    await waitForState(app, first, 'COMPLETED');
    await waitForState(app, second, 'COMPLETED');
    const page = await list(`incident_id=${incident}`);
    expect(taskIds(page)).toEqual([second, first]);
    expect(page.next_cursor).toBeNull();
    expect(page.items[0]).toEqual({
      task_id: second,
      incident_id: incident,
      trigger: 'manual',
      state: 'COMPLETED',
      progress: 100,
      created_at: expect.stringMatching(ISO),
      completed_at: expect.stringMatching(ISO),
    });
    expect(Date.parse(page.items[0].created_at)).toBe(Date.parse(page.items[1].created_at) + 1000);
  });

  it('lists every analysis without the filter, services-only ones included', async () => {
    clock.advance(1000);
    const byServices = await post({ severity: 'P2', affected_services: ['checkout'] });
    const page = await list('limit=200');
    expect(taskIds(page)[0]).toBe(byServices);
    expect(page.items[0].incident_id).toBeNull();
    expect(taskIds(page).length).toBeGreaterThanOrEqual(4);
  });

  it('pages with its cursor, each task once, when several share a creation time', async () => {
    const tied = await openIncident(app, { namespace: 'tasks', target_resource: 'tied-1' });
    clock.advance(1000);
    const made: string[] = [];
    for (let n = 0; n < 5; n += 1) made.push(await post({ incident_id: tied }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`incident_id=${tied}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...taskIds(page));
      cursor = page.next_cursor;
    } while (cursor);
    // Same creation time: the id decides, highest first.
    expect(seen).toEqual([...made].sort().reverse());
  });

  it('answers an empty page for an incident without analyses, and 422 for a bad cursor', async () => {
    expect(await list('incident_id=inc-none')).toEqual({ items: [], next_cursor: null });
    const bad = await app.inject({ url: '/api/v1/agents/tasks?cursor=nonsense', headers: AUTH });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({
      detail: 'cursor is not a cursor this service issued',
      code: 'bad_cursor',
    });
  });

  it('is read API: the console token guards it', async () => {
    const refused = await app.inject('/api/v1/agents/tasks');
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toEqual({ detail: 'Unauthorized', code: 'unauthorized' });
  });
});

import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/build-app.js';

/**
 * CONTRACT, Under races, crashes and abuse (Heartbeats at scale): "Names of up to 128
 * characters and ids of any length the contract allows are answered by the service's own
 * rules with a `detail` (never the framework's 414)."
 */

const KEY = 'operator-key-0123456789abcdef';
const OPERATOR = { 'x-operator-id': 'alice', 'x-operator-key': KEY };

describe('long names and ids in the path', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    ({ app } = await buildTestApp({
      env: { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: `alice:${KEY}` },
    }));
  });
  afterAll(() => app?.close());

  it('a heartbeat named with 128 characters beats, is listed and is deleted', async () => {
    const name = `${'n'.repeat(120)}:job.1-x`;
    expect(name).toHaveLength(128);
    const beat = await app.inject({ method: 'POST', url: `/api/v1/heartbeats/${name}` });
    expect(beat.statusCode, beat.body).toBe(200);
    expect(beat.json().name).toBe(name);
    const list = (await app.inject('/api/v1/heartbeats')).json();
    expect(list.items.map((item: { name: string }) => item.name)).toEqual([name]);
    const deleted = await app.inject({ method: 'DELETE', url: `/api/v1/heartbeats/${name}` });
    expect(deleted.json()).toEqual({ name });
  });

  it('a heartbeat name of 129 characters is refused by the name rule (422)', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: `/api/v1/heartbeats/${'n'.repeat(129)}`,
    });
    expect(answer.statusCode).toBe(422);
    expect(answer.json().detail).toMatch(/^params\.name /);
  });

  it.each([
    ['GET', '/api/v1/incidents/', '', 404, /^Incident not found: a{300}$/],
    ['GET', '/api/v1/approvals/', '', 404, /^Approval not found: a{300}$/],
    ['POST', '/api/v1/incidents/', '/acknowledge', 422, /^params\.id must be at most 128/],
    ['POST', '/api/v1/incidents/', '/resolve', 422, /^params\.id must be at most 128/],
    ['POST', '/api/v1/approvals/', '/decision', 422, /^params\.id must be at most 64/],
    ['GET', '/api/v1/alertmanager/api/v2/silence/', '', 422, /^params\.silenceID must be at most/],
    ['GET', '/api/v1/agents/status/', '', 404, /a{300}/],
  ] as const)(
    '%s %s<300 characters>%s is answered by its own rule',
    async (method, before, after, status, detail) => {
      const answer = await app.inject({
        method,
        url: `${before}${'a'.repeat(300)}${after}`,
        headers: OPERATOR,
        ...(method === 'POST' ? { payload: { decision: 'approve' } } : {}),
      });
      expect(answer.statusCode, answer.body).toBe(status);
      expect(answer.json().detail).toMatch(detail);
    },
  );

  it('an id as long as a request line can carry still reaches the route', async () => {
    const answer = await app.inject(`/api/v1/incidents/${'a'.repeat(16_000)}`);
    expect(answer.statusCode).toBe(404);
    expect(answer.json().detail).toMatch(/^Incident not found: a+$/);
  });

  it('a segment longer than any request line Node takes is still answered with a detail', async () => {
    const answer = await app.inject(`/api/v1/incidents/${'a'.repeat(17_000)}`);
    expect(answer.statusCode).toBe(414);
    expect(answer.json()).toEqual({
      detail: 'A path segment is longer than the limit (16384)',
      code: 'path_segment_too_long',
    });
  });

  it('a path segment that is not valid percent-encoding is a 400 with a detail', async () => {
    const answer = await app.inject('/api/v1/incidents/%E0%A4%A');
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({
      detail: 'The URL holds a malformed percent-encoding',
      code: 'bad_url',
    });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});

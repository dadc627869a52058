import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  FEED_EVENT_NAMES,
  FEED_EVENT_SCHEMAS,
  FeedEventSchema,
} from '../../src/features/events/feed-event-types.js';
import { deliver, issueAlert } from '../errtracker/tracker-delivery.js';
import { backends, buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';
import { openFeed } from '../helpers/feed-client.js';
import { createSilence, SILENCE, silenceBody } from '../silences/silence-helpers.js';

const ajv = new Ajv({ allErrors: true });
addFormats.default(ajv);
const validEvent = ajv.compile(FeedEventSchema);
const validByType = new Map(
  [...FEED_EVENT_SCHEMAS].map(([name, schema]) => [name as string, ajv.compile(schema)]),
);
/** Checked against its own type's schema, for a message naming the field, and the union's. */
const problemsOf = (event: { type: string; [field: string]: unknown }) => {
  const valid = validByType.get(event.type);
  if (!valid) return { event, problems: 'an undeclared type' };
  if (!valid(event)) return { event, problems: ajv.errorsText(valid.errors) };
  return validEvent(event) ? undefined : { event, problems: ajv.errorsText(validEvent.errors) };
};

const KEY = 'alice-key-0123456789';
const alice = { 'x-operator-id': 'alice', 'x-operator-key': KEY };
const alert = (target: string, status = 'firing') => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'feed-schema',
  target_resource: target,
  status,
});

/**
 * CONTRACT, Operator console: every event the service publishes, taken from the feed as a
 * client reads it after real flows, is one its declaration (feed-event-types.ts) describes,
 * field for field; the console's types are generated from that declaration.
 */
describe.each(backends())('feed events against their declared schemas on %s', (backend) => {
  let app: TestApp['app'];
  let feed: Awaited<ReturnType<typeof openFeed>>;
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: { OPERATOR_KEYS: `alice:${KEY}` } }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    feed = await openFeed(app);
  });
  afterAll(() => feed?.close());

  it('the schema refuses an undeclared field, a missing one and an unknown type', () => {
    const event = {
      type: 'incident.resolved',
      at: new Date().toISOString(),
      incident_id: 'inc-1',
      actor: 'alert',
    };
    expect(problemsOf(event)).toBeUndefined();
    expect(problemsOf({ ...event, extra: 1 })).toBeDefined();
    expect(problemsOf({ ...event, actor: undefined })).toBeDefined();
    expect(problemsOf({ ...event, type: 'incident.deleted' })).toBeDefined();
    expect(problemsOf({ ...event, at: 'yesterday' })).toBeDefined();
    expect(validEvent({ ...event, extra: 1 })).toBe(false);
    expect(validEvent({ ...event, type: 'incident.deleted' })).toBe(false);
  });

  it('every type is published by some flow, and every event published matches', async () => {
    const opened = (await postSigned(app, '/api/v1/webhooks/alerts', alert('decided-1'))).json();
    await postSigned(app, '/api/v1/webhooks/alerts', alert('decided-1'));
    await app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${opened.incident_id}/acknowledge`,
      headers: alice,
    });
    const decided = await app.inject({
      method: 'POST',
      url: `/api/v1/approvals/${opened.approval_id}/decision`,
      headers: alice,
      payload: { decision: 'approve' },
    });
    expect(decided.statusCode).toBe(200);
    // Resolved with its approval pending, which expires; then firing again, which reopens it.
    await postSigned(app, '/api/v1/webhooks/alerts', alert('resolved-1'));
    await postSigned(app, '/api/v1/webhooks/alerts', alert('resolved-1', 'resolved'));
    await postSigned(app, '/api/v1/webhooks/alerts', alert('resolved-1'));
    expect((await deliver(app, issueAlert('feed-schema-issue'))).json().status).toBe('accepted');
    for (const severity of ['info', 'critical']) {
      const signal = { source: 'probe', alert_name: 'FeedSchema', target: 'api-1', severity };
      const sent = await app.inject({
        method: 'POST',
        url: '/api/v1/webhooks/signals',
        payload: signal,
      });
      expect(sent.statusCode).toBe(200);
    }
    const task = await app.inject({
      method: 'POST',
      url: '/api/v1/agents/analyze',
      payload: { incident_id: opened.incident_id },
    });
    expect(task.statusCode).toBe(200);
    const silence = await createSilence(
      app,
      silenceBody(Date.now(), [{ name: 'alertname', value: 'FeedSchema' }]),
    );
    await app.inject({ method: 'DELETE', url: `${SILENCE}/${silence}` });

    const seen = () => new Set(feed.frames.map((frame) => frame.event.type));
    await feed.until(
      () => FEED_EVENT_NAMES.every((name) => seen().has(name)),
      `every declared type (${FEED_EVENT_NAMES.join(', ')})`,
    );
    const mismatched = feed.frames.map((frame) => problemsOf(frame.event)).filter(Boolean);
    expect(mismatched).toEqual([]);
  });
});

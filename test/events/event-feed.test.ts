import { afterAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';
import { type FeedFrame, openFeed } from '../helpers/feed-client.js';

const OPERATORS = 'alice:alice-key';

async function listening(options: Parameters<typeof buildTestApp>[0]): Promise<TestApp> {
  const test = await buildTestApp(options);
  await test.app.listen({ port: 0, host: '127.0.0.1' });
  return test;
}

const alert = (target: string) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'feed',
  target_resource: target,
});

const types = (frames: FeedFrame[]) => frames.map((frame) => frame.event.type);

/**
 * CONTRACT, Operator console: `GET /api/v1/events` carries the service's own events after
 * their commit, on every backend and across replicas, and resumes with `Last-Event-ID`.
 */
describe.each(backends())('the event feed on %s', (backend) => {
  const feeds: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const feed of feeds) await feed.close();
  });
  const env = { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: OPERATORS };

  it('streams incidents, convergence and decisions as they happen, in order', async () => {
    const { app } = await listening({ backend, env });
    const feed = await openFeed(app);
    feeds.push(feed);
    expect(feed.response.headers.get('content-type')).toBe('text/event-stream');
    const created = (await postSigned(app, '/api/v1/webhooks/alerts', alert('svc-1'))).json();
    await postSigned(app, '/api/v1/webhooks/alerts', alert('svc-1'));
    await app.inject({
      method: 'POST',
      url: `/api/v1/approvals/${created.approval_id}/decision`,
      payload: { decision: 'reject' },
      headers: { 'x-operator-id': 'alice', 'x-operator-key': 'alice-key' },
    });
    await feed.until(
      (frames) => types(frames).includes('approval.updated'),
      'the rejection on the feed',
    );
    expect(types(feed.frames)).toEqual([
      'incident.created',
      'approval.created',
      'incident.converged',
      'approval.updated',
    ]);
    const [incident, approval, converged, decided] = feed.frames.map((frame) => frame.event);
    expect(incident).toMatchObject({
      incident_id: created.incident_id,
      approval_id: created.approval_id,
      // The incident's severity, as the read API shows it (warning is P2).
      severity: 'P2',
      namespace: 'feed',
      hit_count: 1,
    });
    expect(Date.parse(incident!.at)).not.toBeNaN();
    expect(approval).toMatchObject({ approval_id: created.approval_id });
    expect(converged).toMatchObject({ incident_id: created.incident_id, hit_count: 2 });
    expect(decided).toMatchObject({
      approval_id: created.approval_id,
      status: 'rejected',
      actor: 'console_alice',
      channel: 'console',
    });
    // Ids rise in feed order.
    const ids = feed.frames.map((frame) => frame.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('replays what a client missed after its Last-Event-ID, once each, then goes on live', async () => {
    const { app } = await listening({ backend, env });
    const first = await openFeed(app);
    feeds.push(first);
    await postSigned(app, '/api/v1/webhooks/alerts', alert('svc-a'));
    await first.until((frames) => frames.length >= 2, 'the first incident');
    const seen = first.frames[1]!.id;
    await first.close();

    await postSigned(app, '/api/v1/webhooks/alerts', alert('svc-b'));
    const resumed = await openFeed(app, { 'last-event-id': seen });
    feeds.push(resumed);
    await resumed.until((frames) => frames.length >= 2, 'the missed incident');
    await postSigned(app, '/api/v1/webhooks/alerts', alert('svc-c'));
    await resumed.until((frames) => frames.length >= 4, 'the live incident');
    const targets = resumed.frames
      .filter((frame) => frame.event.type === 'incident.created')
      .map((frame) => frame.event.incident_id);
    expect(targets).toHaveLength(2);
    expect(types(resumed.frames)).toEqual([
      'incident.created',
      'approval.created',
      'incident.created',
      'approval.created',
    ]);
    // A client that cannot set headers resumes with the query parameter instead.
    const byQuery = await openFeed(app, {}, `?last_event_id=${encodeURIComponent(seen)}`);
    feeds.push(byQuery);
    await byQuery.until((frames) => frames.length >= 4, 'the events after the id');
    expect(byQuery.frames.map((frame) => frame.id)).toEqual(
      resumed.frames.map((frame) => frame.id),
    );
  });

  it('is read API: the console token when CONSOLE_TOKEN is set', async () => {
    const { app } = await listening({ backend, env: { ...env, CONSOLE_TOKEN: 'feed-token' } });
    const refused = await openFeed(app);
    feeds.push(refused);
    expect(refused.response.status).toBe(401);
    const allowed = await openFeed(app, { authorization: 'Bearer feed-token' });
    feeds.push(allowed);
    expect(allowed.response.status).toBe(200);
  });
});

describe.each(backends().filter((b) => b === 'distributed'))('the feed across replicas', () => {
  it('shows a client of one replica what another replica did', async () => {
    const one = await listening({ backend: 'distributed', env: { SIGNAL_CONSUMER: 'false' } });
    const two = await listening({ reuse: one });
    const feed = await openFeed(two.app);
    await postSigned(one.app, '/api/v1/webhooks/alerts', alert('svc-replica'));
    await feed.until(
      (frames) => types(frames).includes('incident.created'),
      'the other replica’s incident',
    );
    await feed.close();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver, issueAlert } from '../errtracker/tracker-delivery.js';
import { backends, buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';
import { openFeed } from '../helpers/feed-client.js';

/**
 * CONTRACT, Operator console: a feed event carries what the console shows of its record, so
 * the page renders it without reading the record back (one request per event, in a storm).
 */
describe.each(backends())('what feed events carry on %s', (backend) => {
  let app: TestApp['app'];
  let feed: Awaited<ReturnType<typeof openFeed>>;
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    feed = await openFeed(app);
  });
  afterAll(() => feed?.close());
  const eventOf = async (type: string, match: (event: Record<string, unknown>) => boolean) => {
    await feed.until(
      (frames) => frames.some((frame) => frame.event.type === type && match(frame.event)),
      type,
    );
    return feed.frames.find((frame) => frame.event.type === type && match(frame.event))!.event;
  };

  it('incident.created names the alert, its workload and status; approval.created its action and risk', async () => {
    const created = (
      await postSigned(app, '/api/v1/webhooks/alerts', {
        alert_name: 'KubePodCrashLooping',
        severity: 'P0',
        namespace: 'feed-fields',
        target_resource: 'cart-7d9f8b6c5-x2x4z',
      })
    ).json();
    const incident = await eventOf(
      'incident.created',
      (e) => e.incident_id === created.incident_id,
    );
    expect(incident).toEqual({
      type: 'incident.created',
      at: expect.any(String),
      incident_id: created.incident_id,
      approval_id: created.approval_id,
      fingerprint: created.fingerprint,
      severity: 'P0',
      namespace: 'feed-fields',
      alert_name: 'KubePodCrashLooping',
      workload: 'cart',
      status: 'open',
      hit_count: 1,
    });
    const approval = await eventOf(
      'approval.created',
      (e) => e.approval_id === created.approval_id,
    );
    const read = (await app.inject(`/api/v1/approvals/${created.approval_id}`)).json();
    expect(approval).toEqual({
      type: 'approval.created',
      at: expect.any(String),
      approval_id: created.approval_id,
      incident_id: created.incident_id,
      action: read.action,
      risk_level: 'critical',
    });
    expect(read.action).toBe('crash_loop on feed-fields/cart');
  });

  it("the error tracker's approval.created carries its action and risk too", async () => {
    expect((await deliver(app, issueAlert('feed-issue-1', { level: 'fatal' }))).json().status).toBe(
      'accepted',
    );
    const approval = await eventOf('approval.created', (e) => e.issue_id === 'feed-issue-1');
    const read = (await app.inject(`/api/v1/approvals/${approval.approval_id}`)).json();
    expect(approval).toMatchObject({
      incident_id: null,
      action: read.action,
      risk_level: read.risk_level,
    });
    expect(read.action).toEqual(expect.any(String));
  });
});

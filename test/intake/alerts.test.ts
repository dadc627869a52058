import crypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  backends,
  buildTestApp,
  postSigned,
  type TestApp,
  TestClock,
} from '../helpers/build-app.js';

const URL = '/api/v1/webhooks/alerts';
const crashLoop = {
  alert_name: 'KubePodCrashLooping',
  severity: 'critical',
  source: 'prometheus',
  target_resource: 'checkout-7d9f8b6c5-x2x4z',
  namespace: 'shop',
  message: 'Pod is restarting 5 times / 10 minutes',
};

function expectedFingerprint(namespace: string, workload: string, alertType: string) {
  return crypto
    .createHash('sha256')
    .update(`${namespace}:${workload}:${alertType}`)
    .digest('hex')
    .slice(0, 32);
}

describe.each(backends())('alert webhook on %s', (backend) => {
  const clock = new TestClock();
  let testApp: TestApp;
  let app: TestApp['app'];
  let store: TestApp['app']['services']['store'];
  beforeAll(async () => {
    testApp = await buildTestApp({ backend, clock, env: { SIGNAL_CONSUMER: 'false' } });
    ({ app } = testApp);
    ({ store } = app.services);
  });

  it('creates an incident and a pending approval for a new alert (CONTRACT)', async () => {
    const response = await postSigned(app, URL, crashLoop);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      status: 'created',
      alert_id: expect.stringMatching(/^alert-\d{14}$/),
      fingerprint: expectedFingerprint('shop', 'checkout', 'crash_loop'),
      incident_id: expect.any(String),
      approval_id: expect.any(String),
      hit_count: 1,
      analysis_scheduled: true,
    });
    const approval = await app.inject(`/api/v1/approvals/${body.approval_id}`);
    expect(approval.json()).toMatchObject({ status: 'pending', incident_id: body.incident_id });
  });

  it('names the alert in Taipei time: alert-<YYYYMMDDHHMMSS>', async () => {
    const local = new TestClock(Date.parse('2026-03-04T22:30:45Z'));
    const { app: other } = await buildTestApp({ clock: local, env: { SIGNAL_CONSUMER: 'false' } });
    const response = await postSigned(other, URL, { alert_name: 'Anything', target_resource: 'x' });
    expect(response.json().alert_id).toBe('alert-20260305063045');
  });

  it('converges a repeat: same incident and approval, hit_count rises, no analysis', async () => {
    const alert = { ...crashLoop, namespace: 'converge' };
    const first = (await postSigned(app, URL, alert)).json();
    // Another pod of the same ReplicaSet is the same workload.
    const second = (
      await postSigned(app, URL, { ...alert, target_resource: 'checkout-7d9f8b6c5-qq8zz' })
    ).json();
    expect(second).toEqual({
      status: 'converged',
      alert_id: expect.stringMatching(/^alert-\d{14}$/),
      fingerprint: first.fingerprint,
      incident_id: first.incident_id,
      approval_id: first.approval_id,
      hit_count: 2,
      analysis_scheduled: false,
    });
  });

  it('keeps converging while the approval is pending, even after 5 minutes', async () => {
    const alert = { ...crashLoop, namespace: 'pending-window' };
    const first = (await postSigned(app, URL, alert)).json();
    clock.advance(60 * 60 * 1000);
    const later = (await postSigned(app, URL, alert)).json();
    expect(later).toMatchObject({ status: 'converged', incident_id: first.incident_id });
  });

  it('opens a new incident once the record is decided and older than 5 minutes', async () => {
    const alert = { ...crashLoop, namespace: 'decided' };
    const first = (await postSigned(app, URL, alert)).json();
    await store.db
      .updateTable('approvals')
      .set({ status: 'rejected' })
      .where('id', '=', first.approval_id)
      .execute();
    clock.advance(4 * 60 * 1000);
    const within = (await postSigned(app, URL, alert)).json();
    expect(within).toMatchObject({ status: 'converged', incident_id: first.incident_id });
    clock.advance(61 * 1000);
    const after = (await postSigned(app, URL, alert)).json();
    expect(after.status).toBe('created');
    expect(after.incident_id).not.toBe(first.incident_id);
  });

  it('different fingerprint inputs make different incidents', async () => {
    const a = (await postSigned(app, URL, { ...crashLoop, namespace: 'fp-a' })).json();
    const b = (await postSigned(app, URL, { ...crashLoop, namespace: 'fp-b' })).json();
    const c = (
      await postSigned(app, URL, { ...crashLoop, namespace: 'fp-a', alert_name: 'KubePodNotReady' })
    ).json();
    expect(new Set([a.incident_id, b.incident_id, c.incident_id]).size).toBe(3);
  });

  it('converges 200 concurrent identical alerts onto one incident with hit_count 200', async () => {
    const alert = { ...crashLoop, namespace: 'storm' };
    const responses = await Promise.all(
      Array.from({ length: 200 }, () => postSigned(app, URL, alert)),
    );
    expect(responses.every((r) => r.statusCode === 200)).toBe(true);
    const bodies = responses.map((r) => r.json());
    expect(bodies.filter((b) => b.status === 'created')).toHaveLength(1);
    expect(new Set(bodies.map((b) => b.incident_id)).size).toBe(1);
    expect(Math.max(...bodies.map((b) => b.hit_count))).toBe(200);
    const incidents = await store.db
      .selectFrom('incidents')
      .selectAll()
      .where('namespace', '=', 'storm')
      .execute();
    expect(incidents).toHaveLength(1);
    expect(incidents[0]!.hit_count).toBe(200);
    const approvals = await store.db
      .selectFrom('approvals')
      .select('id')
      .where('incident_id', '=', incidents[0]!.id)
      .execute();
    expect(approvals).toHaveLength(1);
  });

  it('counts every hit of many fingerprints converging in the same batches, across replicas', async () => {
    const replica = await buildTestApp({
      reuse: testApp,
      clock,
      env: { SIGNAL_CONSUMER: 'false' },
    });
    const namespaces = Array.from({ length: 12 }, (_, n) => `many-${n}`);
    // Opened first, so every later alert joins an incident: the batches only raise counts.
    for (const namespace of namespaces) await postSigned(app, URL, { ...crashLoop, namespace });
    const rounds = 10;
    const responses = await Promise.all(
      Array.from({ length: rounds * namespaces.length }, (_, n) =>
        postSigned(n % 3 ? app : replica.app, URL, {
          ...crashLoop,
          namespace: namespaces[n % namespaces.length],
        }),
      ),
    );
    const bodies = responses.map((r) => r.json());
    expect(bodies.every((b) => b.status === 'converged')).toBe(true);
    for (const [n, namespace] of namespaces.entries()) {
      const mine = bodies.filter((_, i) => i % namespaces.length === n);
      // Each alert saw its own count: 2 to rounds + 1, none twice.
      expect(mine.map((b) => b.hit_count).sort((x, y) => x - y)).toEqual(
        Array.from({ length: rounds }, (_, i) => i + 2),
      );
      const incidents = await store.db
        .selectFrom('incidents')
        .select(['id', 'hit_count'])
        .where('namespace', '=', namespace)
        .execute();
      expect(incidents).toEqual([{ id: mine[0].incident_id, hit_count: rounds + 1 }]);
    }
  });

  it('converges across two replicas sharing the state: one incident, hit_count 200', async () => {
    const replica = await buildTestApp({
      reuse: testApp,
      clock,
      env: { SIGNAL_CONSUMER: 'false' },
    });
    const alert = { ...crashLoop, namespace: 'replicas' };
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, n) => postSigned(n % 2 ? app : replica.app, URL, alert)),
    );
    const bodies = responses.map((r) => r.json());
    expect(bodies.filter((b) => b.status === 'created')).toHaveLength(1);
    expect(new Set(bodies.map((b) => b.hit_count)).size).toBe(200);
    const incidents = await store.db
      .selectFrom('incidents')
      .select('hit_count')
      .where('namespace', '=', 'replicas')
      .execute();
    expect(incidents).toEqual([{ hit_count: 200 }]);
  });

  it('handles an Alertmanager v4 batch: firing alerts handled, resolved ones only recorded', async () => {
    const batch = {
      version: '4',
      status: 'firing',
      receiver: 'platform',
      groupKey: '{}:{alertname="KubePodCrashLooping"}',
      groupLabels: { alertname: 'KubePodCrashLooping' },
      commonLabels: { alertname: 'KubePodCrashLooping', namespace: 'am', severity: 'warning' },
      commonAnnotations: {},
      externalURL: 'http://alertmanager.example.com',
      alerts: [
        {
          status: 'firing',
          labels: { pod: 'web-5c9f7d8b4-x7k2p' },
          annotations: { summary: 'web is crash looping' },
          startsAt: '2026-11-22T01:00:00Z',
        },
        {
          status: 'resolved',
          labels: { pod: 'db-0' },
          annotations: {},
          startsAt: '2026-11-22T00:00:00Z',
          endsAt: '2026-11-22T00:30:00Z',
        },
      ],
    };
    const response = await postSigned(app, URL, batch);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.status).toBe('batch');
    expect(body.results).toHaveLength(2);
    expect(body.results[0]).toMatchObject({
      status: 'created',
      fingerprint: expectedFingerprint('am', 'web', 'crash_loop'),
      hit_count: 1,
    });
    expect(body.results[1]).toMatchObject({ status: 'resolved', analysis_scheduled: false });
    const incidents = await store.db
      .selectFrom('incidents')
      .select('workload')
      .where('namespace', '=', 'am')
      .execute();
    expect(incidents).toEqual([{ workload: 'web' }]);
  });

  it('explains the grouping on GET /incidents/{id}', async () => {
    const created = (await postSigned(app, URL, { ...crashLoop, namespace: 'explain' })).json();
    await postSigned(app, URL, { ...crashLoop, namespace: 'explain' });
    const response = await app.inject(`/api/v1/incidents/${created.incident_id}`);
    expect(response.statusCode).toBe(200);
    const incident = response.json();
    expect(incident).toMatchObject({
      id: created.incident_id,
      hit_count: 2,
      severity: 'P1',
      alert_type: 'crash_loop',
      grouping: {
        fingerprint: created.fingerprint,
        inputs: { namespace: 'explain', workload: 'checkout', alert_type: 'crash_loop' },
        alert_type_source: expect.stringMatching(/^table:/),
        debounce_window_seconds: 300,
      },
    });
    expect(incident.recent_alerts.map((a: { outcome: string }) => a.outcome)).toEqual([
      'converged',
      'created',
    ]);
  });

  it('pages GET /incidents with a cursor and filters by namespace', async () => {
    for (const n of [1, 2, 3]) {
      await postSigned(app, URL, { ...crashLoop, namespace: 'paged', target_resource: `svc${n}` });
    }
    const first = (await app.inject('/api/v1/incidents?namespace=paged&limit=2')).json();
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (
      await app.inject(`/api/v1/incidents?namespace=paged&limit=2&cursor=${first.next_cursor}`)
    ).json();
    expect(second.items).toHaveLength(1);
    expect(second.next_cursor).toBeNull();
    const workloads = [...first.items, ...second.items].map(
      (i: { workload: string }) => i.workload,
    );
    expect(workloads).toEqual(['svc3', 'svc2', 'svc1']);
    const bad = await app.inject('/api/v1/incidents?cursor=garbage');
    expect(bad.statusCode).toBe(422);
  });

  it('lists approvals by status and answers 404 for an unknown one', async () => {
    const pending = (await app.inject('/api/v1/approvals?status=pending&limit=200')).json();
    expect(pending.items.length).toBeGreaterThan(0);
    expect(pending.items.every((a: { status: string }) => a.status === 'pending')).toBe(true);
    const missing = await app.inject('/api/v1/approvals/nope');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({
      detail: 'Approval not found: nope',
      code: 'approval_not_found',
    });
    const badStatus = await app.inject('/api/v1/approvals?status=maybe');
    expect(badStatus.statusCode).toBe(422);
    expect(badStatus.json().detail).toMatch(/querystring\.status/);
  });
});

describe('alert webhook validation', () => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } }));
  });

  it.each([
    [{ severity: 'critical' }, 'body.alert_name is required unless body.alert_type is given'],
    [{ alert_name: 'X', severity: 'urgent' }, 'body.severity must be one of'],
    [{ alert_name: 'X', labels: 'a=b' }, 'body.labels'],
    [{ alert_name: 42 }, 'body.alert_name must be of type string'],
    [{ alerts: 'nope' }, 'body.alerts must be of type array'],
    [[1, 2], 'body must be a JSON object'],
  ])('rejects %j with 422', async (payload, detail) => {
    const response = await postSigned(app, URL, payload);
    expect(response.statusCode).toBe(422);
    expect(response.json().detail).toContain(detail);
  });

  it('accepts alert_type without alert_name', async () => {
    const response = await postSigned(app, URL, {
      alert_type: 'disk_pressure',
      target_resource: 'n1',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().status).toBe('created');
  });
});

import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { approvalsOnResolve } from '../../src/features/approvals/expired-approval.js';
import { createCardSender } from '../../src/features/cards/card-sender.js';
import { sweepSilentIncidents } from '../../src/features/incidents/incident-timeout.js';
import { backends, buildTestApp, postSigned, TestClock } from '../helpers/build-app.js';

const KEY = 'alice-key-0123456789';
const ENV = { SIGNAL_CONSUMER: 'false', OPERATOR_KEYS: `alice:${KEY}` };
const alice = { 'x-operator-id': 'alice', 'x-operator-key': KEY };

const firing = (target: string, extra: Record<string, unknown> = {}) => ({
  alert_name: 'KubePodCrashLooping',
  severity: 'warning',
  namespace: 'lifecycle',
  target_resource: target,
  ...extra,
});

async function open(app: FastifyInstance, target: string) {
  return (await postSigned(app, '/api/v1/webhooks/alerts', firing(target))).json();
}
const incident = async (app: FastifyInstance, id: string) =>
  (await app.inject(`/api/v1/incidents/${id}`)).json();
const act = (app: FastifyInstance, id: string, action: string, headers = alice) =>
  app.inject({ method: 'POST', url: `/api/v1/incidents/${id}/${action}`, headers });

/** CONTRACT, Incident lifecycle: open → acknowledged → resolved, with reopen and timeout. */
describe.each(backends())('the incident lifecycle on %s', (backend) => {
  it('operators acknowledge and resolve, each once, and the timeline says who and when', async () => {
    const { app } = await buildTestApp({ backend, env: ENV });
    const created = await open(app, 'ack-1');
    expect(await incident(app, created.incident_id)).toMatchObject({
      status: 'open',
      acknowledged_by: null,
      acknowledged_at: null,
      resolved_by: null,
      resolved_at: null,
      reopen_count: 0,
      timeline: [{ event: 'opened', actor: 'alert' }],
    });
    const acked = await act(app, created.incident_id, 'acknowledge');
    expect(acked.statusCode).toBe(200);
    expect(acked.json()).toMatchObject({
      status: 'acknowledged',
      acknowledged_by: 'console_alice',
    });
    expect(acked.json().acknowledged_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const again = await act(app, created.incident_id, 'acknowledge');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      detail: 'Incident already acknowledged',
      code: 'incident_already_acknowledged',
    });

    const resolved = await act(app, created.incident_id, 'resolve');
    expect(resolved.json()).toMatchObject({ status: 'resolved', resolved_by: 'console_alice' });
    expect(resolved.json().timeline.map((entry: { event: string }) => entry.event)).toEqual([
      'opened',
      'acknowledged',
      'resolved',
    ]);
    for (const action of ['acknowledge', 'resolve']) {
      const late = await act(app, created.incident_id, action);
      expect(late.statusCode).toBe(409);
      expect(late.json()).toEqual({
        detail: 'Incident already resolved',
        code: 'incident_already_resolved',
      });
    }
    expect((await act(app, 'inc-none', 'resolve')).json()).toEqual({
      code: 'incident_not_found',
      detail: 'Incident not found: inc-none',
    });
    const stranger = await act(app, created.incident_id, 'resolve', {
      'x-operator-id': 'alice',
      'x-operator-key': 'wrong-key',
    });
    expect(stranger.statusCode).toBe(401);
    expect(stranger.json()).toEqual({
      detail: 'Invalid operator credentials',
      code: 'operator_invalid',
    });

    const list = await app.inject('/api/v1/incidents?status=resolved');
    expect(list.json().items.map((item: { id: string }) => item.id)).toEqual([created.incident_id]);
  });

  it('a resolved alert resolves the incident, expires its approval, and creates nothing', async () => {
    const { app } = await buildTestApp({ backend, env: ENV });
    const created = await open(app, 'resolve-1');
    const answer = await postSigned(
      app,
      '/api/v1/webhooks/alerts',
      firing('resolve-1', { status: 'resolved' }),
    );
    expect(answer.json()).toEqual({
      status: 'resolved',
      alert_id: expect.any(String),
      fingerprint: created.fingerprint,
      incident_id: created.incident_id,
      analysis_scheduled: false,
    });
    expect(await incident(app, created.incident_id)).toMatchObject({
      status: 'resolved',
      resolved_by: 'alert',
    });
    const approval = (await app.inject(`/api/v1/approvals/${created.approval_id}`)).json();
    expect(approval.status).toBe('expired');
    const decision = await app.inject({
      method: 'POST',
      url: `/api/v1/approvals/${created.approval_id}/decision`,
      headers: alice,
      payload: { decision: 'approve' },
    });
    expect(decision.statusCode).toBe(409);
    expect(decision.json()).toEqual({
      detail: 'Approval already expired',
      code: 'approval_already_decided',
    });

    const nothing = await postSigned(
      app,
      '/api/v1/webhooks/alerts',
      firing('never-fired', { status: 'resolved' }),
    );
    expect(nothing.json()).toMatchObject({ status: 'resolved', incident_id: null });
    expect((await app.inject('/api/v1/incidents')).json().items).toHaveLength(1);
  });

  it('an Alertmanager resolved notification resolves too', async () => {
    const { app } = await buildTestApp({ backend, env: ENV });
    const body = (status: string) => ({
      version: '4',
      status,
      alerts: [{ status, labels: { alertname: 'HighLatency', namespace: 'am', pod: 'api-1' } }],
    });
    const created = (await postSigned(app, '/api/v1/webhooks/alertmanager', body('firing'))).json();
    const id = created.results[0].incident_id;
    const resolved = await postSigned(app, '/api/v1/webhooks/alertmanager', body('resolved'));
    expect(resolved.json().results[0]).toMatchObject({ status: 'resolved', incident_id: id });
    expect(await incident(app, id)).toMatchObject({ status: 'resolved', resolved_by: 'alert' });
  });

  it('a firing alert within 5 minutes reopens a resolved incident; later ones open a new one', async () => {
    const clock = new TestClock();
    const { app } = await buildTestApp({ backend, env: ENV, clock });
    const created = await open(app, 'reopen-1');
    await act(app, created.incident_id, 'resolve');
    clock.advance(60_000);
    const back = (await postSigned(app, '/api/v1/webhooks/alerts', firing('reopen-1'))).json();
    expect(back).toMatchObject({ status: 'converged', incident_id: created.incident_id });
    const reopened = await incident(app, created.incident_id);
    expect(reopened).toMatchObject({
      status: 'open',
      reopen_count: 1,
      resolved_by: null,
      resolved_at: null,
    });
    expect(reopened.timeline.map((entry: { event: string }) => entry.event)).toEqual([
      'opened',
      'resolved',
      'reopened',
    ]);
    await act(app, created.incident_id, 'resolve');
    clock.advance(10 * 60_000);
    const fresh = (await postSigned(app, '/api/v1/webhooks/alerts', firing('reopen-1'))).json();
    expect(fresh.status).toBe('created');
    expect(fresh.incident_id).not.toBe(created.incident_id);
  });

  it('an incident with no alert for INCIDENT_TIMEOUT_SECONDS resolves once, across three replicas', async () => {
    const clock = new TestClock();
    const env = { ...ENV, INCIDENT_TIMEOUT_SECONDS: '600' };
    const first = await buildTestApp({ backend, env, clock });
    const replicas =
      backend === 'distributed'
        ? [
            first,
            await buildTestApp({ reuse: first, clock }),
            await buildTestApp({ reuse: first, clock }),
          ]
        : [first];
    const created = await open(first.app, 'timeout-1');
    clock.advance(599_000);
    const early = replicas.map(({ app }) => sweepSilentIncidents(incidentMoveDeps(app)));
    expect(await Promise.all(early)).toEqual(replicas.map(() => 0));
    clock.advance(2_000);
    const swept = await Promise.all(
      replicas.map(({ app }) => sweepSilentIncidents(incidentMoveDeps(app))),
    );
    expect(swept.reduce((sum, count) => sum + count, 0)).toBe(1);
    const after = await incident(first.app, created.incident_id);
    expect(after).toMatchObject({ status: 'resolved', resolved_by: 'timeout' });
    expect(
      after.timeline.filter((entry: { event: string }) => entry.event === 'resolved'),
    ).toHaveLength(1);
  });
});

function incidentMoveDeps(app: FastifyInstance) {
  const { services } = app;
  return {
    services,
    approvals: approvalsOnResolve({ services, cards: createCardSender(services) }),
  };
}

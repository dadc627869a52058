import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, buildTestApp, postSigned, TestClock } from '../helpers/build-app.js';
import { createSilence, SILENCE, silenceBody } from '../silences/silence-helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies under assertion
type Json = Record<string, any>;

const TOKEN = 'receiver-token-0123456789';
const KEY = 'alice-key-0123456789';
const ENV = { SIGNAL_CONSUMER: 'false', RECEIVER_TOKENS: TOKEN, OPERATOR_KEYS: `alice:${KEY}` };
const receiver = { authorization: `Bearer ${TOKEN}` };
const HOUR = 60 * 60 * 1000;

const grafanaBody = JSON.parse(
  readFileSync(new URL('../fixtures/senders/grafana-webhook.json', import.meta.url), 'utf8'),
);

/** An Alertmanager webhook (version 4) of one firing alert. */
function alertmanagerBatch(labels: Record<string, string>, extra: Record<string, unknown> = {}) {
  return {
    version: '4',
    status: 'firing',
    receiver: 'service',
    commonLabels: {},
    commonAnnotations: {},
    alerts: [
      {
        status: 'firing',
        labels,
        annotations: { summary: 'Pod is restarting' },
        startsAt: '2026-11-24T01:00:00Z',
        endsAt: '0001-01-01T00:00:00Z',
        ...extra,
      },
    ],
  };
}

const detailOf = async (app: FastifyInstance, id: string) => {
  const response = await app.inject(`/api/v1/incidents/${id}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as Json;
};

async function onlyIncidentIn(app: FastifyInstance, namespace: string): Promise<Json> {
  const { items } = (await app.inject(`/api/v1/incidents?namespace=${namespace}`)).json();
  expect(items).toHaveLength(1);
  return detailOf(app, items[0].id);
}

/** CONTRACT, Operator console: what the incident page shows, from the incident's own alerts. */
describe.each(backends())('GET /incidents/{id} for the incident page on %s', (backend) => {
  const clock = new TestClock();
  let app: FastifyInstance;
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: ENV, clock }));
  });

  it('carries the runbook, the generator URL and each alert with its labels and annotations', async () => {
    const labels = {
      alertname: 'KubePodCrashLooping',
      namespace: 'am-detail',
      pod: 'cart-7d9f8b6c5-x2x4z',
      severity: 'critical',
    };
    const first = alertmanagerBatch(labels, {
      generatorURL: 'http://prometheus:9090/graph?g0.expr=up',
    });
    first.commonAnnotations = { runbook_url: 'https://runbooks.example/crashloop' };
    await postSigned(app, '/api/v1/webhooks/alertmanager', first, undefined, receiver);
    clock.advance(1000);
    // A second alert of the incident without a generatorURL: the newest one that had one stays.
    await postSigned(
      app,
      '/api/v1/webhooks/alertmanager',
      alertmanagerBatch({ ...labels, team: 'shop' }),
      undefined,
      receiver,
    );

    const detail = await onlyIncidentIn(app, 'am-detail');
    expect(detail).toMatchObject({
      runbook_url: 'https://runbooks.example/crashloop',
      generator_url: 'http://prometheus:9090/graph?g0.expr=up',
      silences: [],
    });
    expect(detail.recent_alerts).toHaveLength(2);
    const [newest, oldest] = detail.recent_alerts;
    expect(newest).toMatchObject({
      outcome: 'converged',
      labels: { ...labels, team: 'shop' },
      annotations: { summary: 'Pod is restarting' },
      generator_url: null,
    });
    expect(oldest).toMatchObject({
      outcome: 'created',
      labels,
      annotations: {
        summary: 'Pod is restarting',
        runbook_url: 'https://runbooks.example/crashloop',
      },
      generator_url: 'http://prometheus:9090/graph?g0.expr=up',
    });
  });

  it("takes Grafana's generatorURL and runbook_url", async () => {
    const body = {
      ...grafanaBody,
      alerts: [grafanaBody.alerts[0]],
      commonLabels: { namespace: 'grafana-detail' },
    };
    const response = await postSigned(
      app,
      '/api/v1/webhooks/alertmanager',
      body,
      undefined,
      receiver,
    );
    expect(response.statusCode).toBe(200);
    const detail = await onlyIncidentIn(app, 'grafana-detail');
    expect(detail).toMatchObject({
      runbook_url: 'https://myrunbook.com/runbook/1234',
      generator_url: 'https://play.grafana.org/alerting/1afz29v7z/edit',
    });
    expect(detail.recent_alerts[0].labels).toMatchObject({
      alertname: 'High memory usage',
      team: 'blue',
    });
  });

  it("takes the generatorURL of Alertmanager's API v2 postable alerts", async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/v1/alertmanager/api/v2/alerts',
      headers: { ...receiver, 'content-type': 'application/json' },
      payload: JSON.stringify([
        {
          labels: { alertname: 'HighErrorRate', namespace: 'v2-detail', pod: 'api-1' },
          annotations: { runbook: 'https://wiki.example/high-error-rate' },
          generatorURL: 'http://prometheus:9090/graph?g0.expr=errors',
        },
      ]),
    });
    expect(response.statusCode).toBe(200);
    expect(await onlyIncidentIn(app, 'v2-detail')).toMatchObject({
      // No `runbook_url`: the older `runbook` annotation.
      runbook_url: 'https://wiki.example/high-error-rate',
      generator_url: 'http://prometheus:9090/graph?g0.expr=errors',
      recent_alerts: [{ generator_url: 'http://prometheus:9090/graph?g0.expr=errors' }],
    });
  });

  it('answers null for a flat alert without a runbook or generator URL', async () => {
    const created = (
      await postSigned(app, '/api/v1/webhooks/alerts', {
        alert_name: 'Flat',
        severity: 'warning',
        namespace: 'flat-detail',
        target_resource: 'svc-1',
        labels: { team: 'a' },
        annotations: { runbook_url: '  ', note: 'x' },
      })
    ).json();
    expect(await detailOf(app, created.incident_id)).toMatchObject({
      runbook_url: null,
      generator_url: null,
      recent_alerts: [
        {
          labels: { team: 'a' },
          annotations: { runbook_url: '  ', note: 'x' },
          generator_url: null,
        },
      ],
    });
  });

  it('lists the active and pending silences matching its labels, not the others', async () => {
    const created = (
      await postSigned(app, '/api/v1/webhooks/alerts', {
        alert_name: 'DiskFull',
        severity: 'critical',
        namespace: 'silenced-detail',
        target_resource: 'db-0',
        labels: { team: 'storage' },
      })
    ).json();
    const now = clock.now();
    // Created after the incident opened: they mute what comes next, and the page shows them.
    const byName = await createSilence(
      app,
      silenceBody(now, [{ name: 'alertname', value: 'DiskFull' }]),
    );
    const bySeverityAsSent = await createSilence(
      app,
      silenceBody(now, [
        { name: 'severity', value: 'critical' },
        { name: 'namespace', value: 'silenced-.*', isRegex: true },
      ]),
    );
    const pending = await createSilence(
      app,
      silenceBody(now + HOUR, [{ name: 'team', value: 'storage' }], {
        endsAt: new Date(now + 3 * HOUR).toISOString(),
        createdBy: 'bob',
        comment: 'tonight',
      }),
    );
    const expired = await createSilence(
      app,
      silenceBody(now, [{ name: 'workload', value: 'db-0' }]),
    );
    const expire = await app.inject({
      method: 'DELETE',
      url: `${SILENCE}/${expired}`,
    });
    expect(expire.statusCode).toBe(200);
    await createSilence(
      app,
      silenceBody(now, [
        { name: 'team', value: 'storage' },
        { name: 'alertname', value: 'Other' },
      ]),
    );
    await createSilence(
      app,
      silenceBody(now, [
        { name: 'team', value: 'storage', isEqual: false },
        { name: 'alertname', value: 'DiskFull' },
      ]),
    );

    const detail = await detailOf(app, created.incident_id);
    const ends = (ms: number) => new Date(ms).toISOString();
    expect(detail.silences).toEqual(
      [
        {
          id: byName,
          state: 'active',
          created_by: 'alice',
          comment: 'maintenance',
          starts_at: ends(now),
          ends_at: ends(now + HOUR),
        },
        {
          id: bySeverityAsSent,
          state: 'active',
          created_by: 'alice',
          comment: 'maintenance',
          starts_at: ends(now),
          ends_at: ends(now + HOUR),
        },
        {
          id: pending,
          state: 'pending',
          created_by: 'bob',
          comment: 'tonight',
          starts_at: ends(now + HOUR),
          ends_at: ends(now + 3 * HOUR),
        },
      ].sort((a, b) => a.ends_at.localeCompare(b.ends_at)),
    );

    // The operators' moves answer the same incident, silences included.
    const acked = await app.inject({
      method: 'POST',
      url: `/api/v1/incidents/${created.incident_id}/acknowledge`,
      headers: { 'x-operator-id': 'alice', 'x-operator-key': KEY },
    });
    expect(acked.statusCode).toBe(200);
    expect(acked.json().silences).toEqual(detail.silences);
  });
});

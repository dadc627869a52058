import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertmanagerBinary, startAlertmanager } from '../../bench/alertmanager.js';
import type { Target } from '../../bench/lib/target.js';
import { backends, buildTestApp } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * A real Prometheus Alertmanager (Debian's `prometheus-alertmanager`) delivers to
 * `/webhooks/alertmanager` with its own `http_config.authorization`, the way a team would
 * configure it, against a service in `prod` with RECEIVER_TOKENS.
 */
const binary = alertmanagerBinary();
if (!binary && process.env.REQUIRE_SERVICES === '1') {
  throw new Error('REQUIRE_SERVICES=1 needs prometheus-alertmanager (apt-get install it)');
}
if (!binary) console.warn('[tests] prometheus-alertmanager not installed: its suite is skipped');

const RECEIVER_TOKEN = 'alertmanager-receiver-token';
const CONSOLE_TOKEN = 'console-token-for-reading';

/** Alerts labelled `token="wrong"` go to a receiver that presents another token. */
function alertmanagerConfig(serviceUrl: string): string {
  const webhook = (credentials: string) => `    webhook_configs:
      - url: '${serviceUrl}/api/v1/webhooks/alertmanager'
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials: '${credentials}'
`;
  return `route:
  receiver: service
  group_by: ['alertname', 'namespace']
  group_wait: 0s
  group_interval: 1s
  repeat_interval: 1h
  routes:
    - receiver: wrong-token
      matchers: ['token="wrong"']
receivers:
  - name: service
${webhook(RECEIVER_TOKEN)}  - name: wrong-token
${webhook('not-the-receiver-token')}`;
}

async function fire(alertmanager: Target, labels: Record<string, string>) {
  const response = await fetch(`${alertmanager.baseUrl}/api/v2/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ labels, annotations: { summary: `${labels.alertname} fired` } }]),
  });
  expect(response.status).toBe(200);
}

async function failedWebhookDeliveries(alertmanager: Target): Promise<number> {
  const text = await (await fetch(`${alertmanager.baseUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find((row) => row.startsWith('alertmanager_notifications_failed_total{integration="webhook"'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

async function incidentsIn(app: FastifyInstance, namespace: string) {
  const response = await app.inject({
    url: `/api/v1/incidents?namespace=${namespace}`,
    headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
  });
  return response.json().items as Array<{ alert_name: string; source: string; severity: string }>;
}

describe.skipIf(!binary).each(backends())('a real Alertmanager delivering on %s', (backend) => {
  let app: FastifyInstance;
  let alertmanager: Target;
  let workDir: string | undefined;
  beforeAll(async () => {
    ({ app } = await buildTestApp({
      backend,
      env: {
        APP_ENV: 'prod',
        RECEIVER_TOKENS: `another-team-token,${RECEIVER_TOKEN}`,
        WEBHOOK_SECRET: 'hmac-secret-alertmanager-cannot-use',
        CONSOLE_TOKEN,
        SIGNAL_CONSUMER: 'false',
      },
    }));
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    workDir = await mkdtemp(path.join(os.tmpdir(), 'alertmanager-peer-'));
    alertmanager = await startAlertmanager(binary!, workDir, alertmanagerConfig(address));
  });
  afterAll(async () => {
    await alertmanager?.stop();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('opens an incident for a firing alert sent with the receiver token', async () => {
    const namespace = `am-${backend}`;
    await fire(alertmanager, {
      alertname: 'KubePodCrashLooping',
      namespace,
      pod: 'checkout-7d9f8b6c5-x2x4z',
      severity: 'critical',
    });
    const incidents = await waitFor(
      async () => {
        const found = await incidentsIn(app, namespace);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the incident Alertmanager delivered' },
    );
    expect(incidents).toEqual([
      expect.objectContaining({
        alert_name: 'KubePodCrashLooping',
        source: 'alertmanager',
        severity: 'P1',
      }),
    ]);
  });

  // Before the wrong-token case: its refused deliveries count against this address.
  it('sends the Watchdog as a beat of watchdog:<receiver>, opening no incident', async () => {
    const namespace = `am-watchdog-${backend}`;
    await fire(alertmanager, { alertname: 'Watchdog', namespace, severity: 'none' });
    const heartbeat = await waitFor(
      async () => {
        const list = await app.inject({
          url: '/api/v1/heartbeats',
          headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
        });
        return list.json().items.find((item: { name: string }) => item.name === 'watchdog:service');
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the Watchdog beat' },
    );
    expect(heartbeat).toMatchObject({ status: 'ok', timeout_seconds: 600 });
    expect(await incidentsIn(app, namespace)).toEqual([]);
  });

  it('resolves the incident when Alertmanager sends the alert resolved', async () => {
    const namespace = `am-resolved-${backend}`;
    const labels = { alertname: 'HighLatency', namespace, pod: 'api-1', severity: 'warning' };
    await fire(alertmanager, labels);
    const [incident] = await waitFor(
      async () => {
        const found = await incidentsIn(app, namespace);
        return found.length > 0 ? found : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the incident to resolve' },
    );
    const ended = await fetch(`${alertmanager.baseUrl}/api/v2/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ labels, endsAt: new Date(Date.now() - 1000).toISOString() }]),
    });
    expect(ended.status).toBe(200);
    const id = (incident as unknown as { id: string }).id;
    const resolved = await waitFor(
      async () => {
        const detail = await app.inject({
          url: `/api/v1/incidents/${id}`,
          headers: { authorization: `Bearer ${CONSOLE_TOKEN}` },
        });
        const body = detail.json() as { status: string; resolved_by: string | null };
        return body.status === 'resolved' ? body : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: 'the resolved notification' },
    );
    expect(resolved.resolved_by).toBe('alert');
  });

  it('refuses a delivery with a wrong token: Alertmanager sees the 401, nothing is created', async () => {
    const namespace = `am-wrong-${backend}`;
    const failedBefore = await failedWebhookDeliveries(alertmanager);
    await fire(alertmanager, { alertname: 'DiskFull', namespace, pod: 'db-0', token: 'wrong' });
    await waitFor(
      async () => ((await failedWebhookDeliveries(alertmanager)) > failedBefore ? true : undefined),
      { timeoutMs: 20_000, intervalMs: 200, what: "Alertmanager's failed delivery" },
    );
    expect(alertmanager.child.outputTail()).toMatch(/401/);
    expect(await incidentsIn(app, namespace)).toEqual([]);
  });
});

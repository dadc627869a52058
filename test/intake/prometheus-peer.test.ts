import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startProcess, waitForHttp } from '../../bench/lib/processes.js';
import { buildTestApp } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * A real Prometheus (Debian's `prometheus`) with a rule that fires, pointed at the
 * service as its Alertmanager (`alerting.alertmanagers` with `path_prefix`): the incident
 * opens, and resolves when the rule stops firing.
 */
const BINARY = '/usr/bin/prometheus';
const available = existsSync(BINARY);
if (!available && process.env.REQUIRE_SERVICES === '1') {
  throw new Error('REQUIRE_SERVICES=1 needs prometheus (apt-get install it)');
}
const TOKEN = 'prometheus-receiver-token-01';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A target Prometheus scrapes: `demo_queue_depth` is whatever the test sets. */
async function metricTarget() {
  let value = 5;
  const server = http.createServer((_request, response) => {
    response.setHeader('content-type', 'text/plain; version=0.0.4');
    response.end(`# TYPE demo_queue_depth gauge\ndemo_queue_depth ${value}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    set: (next: number) => {
      value = next;
    },
  };
}

describe.runIf(available)('a real Prometheus alerting through the service', () => {
  it('opens an incident when its rule fires, and resolves it when the rule stops firing', async () => {
    const { app } = await buildTestApp({
      env: { SIGNAL_CONSUMER: 'false', RECEIVER_TOKENS: TOKEN },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const servicePort = (app.server.address() as AddressInfo).port;
    const target = await metricTarget();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'prometheus-peer-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeFile(
      path.join(dir, 'rules.yml'),
      `groups:
  - name: demo
    interval: 1s
    rules:
      - alert: QueueBackedUp
        expr: demo_queue_depth > 3
        labels: { severity: critical, namespace: shop, pod: worker-1 }
        annotations: { summary: 'queue depth {{ $value }}' }
`,
    );
    await writeFile(
      path.join(dir, 'prometheus.yml'),
      `global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: ['${path.join(dir, 'rules.yml')}']
scrape_configs:
  - job_name: demo
    static_configs: [{ targets: ['${target.address}'] }]
alerting:
  alertmanagers:
    - path_prefix: /api/v1/alertmanager
      authorization: { type: Bearer, credentials: '${TOKEN}' }
      static_configs: [{ targets: ['127.0.0.1:${servicePort}'] }]
`,
    );
    const port = await freePort();
    const child = startProcess({
      name: 'prometheus',
      command: BINARY,
      args: [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--rules.alert.resend-delay=1s',
        '--log.level=warn',
      ],
      env: { PATH: process.env.PATH },
      cwd: dir,
    });
    cleanups.push(() => child.stop());
    await waitForHttp(child, [`http://127.0.0.1:${port}/-/ready`]);

    const incident = await waitFor(
      async () => {
        const items = (await app.inject('/api/v1/incidents')).json().items;
        return items.find((item: { alert_name: string }) => item.alert_name === 'QueueBackedUp');
      },
      { what: 'the incident Prometheus opened', timeoutMs: 30_000 },
    );
    expect(incident).toMatchObject({ severity: 'P1', namespace: 'shop', status: 'open' });

    target.set(0);
    const resolved = await waitFor(
      async () => {
        const detail = (await app.inject(`/api/v1/incidents/${incident.id}`)).json();
        return detail.status === 'resolved' ? detail : undefined;
      },
      { what: 'the incident resolved by Prometheus', timeoutMs: 30_000 },
    );
    expect(resolved.resolved_by).toBe('alert');
  }, 90_000);
});

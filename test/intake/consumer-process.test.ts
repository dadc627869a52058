import { type ChildProcess, spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp, postSigned } from '../helpers/build-app.js';
import { serviceEntry } from '../helpers/service-entry.js';
import { waitFor } from '../helpers/wait-for.js';
import { AUTH, CONSOLE_TOKEN, createSilence, silenceBody } from '../silences/silence-helpers.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
});

describe('npm run consumer', () => {
  it('handles signals as its own process, sharing the embedded database with the service', async () => {
    const service = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    const consumer = spawn(process.execPath, serviceEntry('consumer'), {
      env: { ...process.env, ...service.env, DATABASE_URL: '', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(consumer);
    for (const n of [1, 2, 3]) {
      await postSigned(service.app, '/api/v1/webhooks/signals', {
        source: 'k8s-events',
        alert_name: 'KubePodNotReady',
        severity: 'critical',
        namespace: 'separate',
        target: `api-${n}`,
      });
    }
    const incidents = await waitFor(
      async () => {
        const items = (await service.app.inject('/api/v1/incidents?namespace=separate')).json()
          .items;
        return items.length === 3 ? items : undefined;
      },
      { what: 'three incidents made by the consumer process', timeoutMs: 20_000 },
    );
    expect(incidents.map((i: { workload: string }) => i.workload).sort()).toEqual([
      'api-1',
      'api-2',
      'api-3',
    ]);
    consumer.kill('SIGTERM');
    const code = await new Promise((resolve) => consumer.once('exit', resolve));
    expect(code).toBe(0);
  });

  it('mutes a signal that a silence matches, as the consumer inside the service does', async () => {
    const service = await buildTestApp({
      env: { SIGNAL_CONSUMER: 'false', CONSOLE_TOKEN },
    });
    await createSilence(
      service.app,
      silenceBody(Date.now(), [{ name: 'namespace', value: 'muted' }]),
    );
    const consumer = spawn(process.execPath, serviceEntry('consumer'), {
      env: { ...process.env, ...service.env, DATABASE_URL: '', REDIS_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(consumer);
    for (const namespace of ['muted', 'heard']) {
      await postSigned(service.app, '/api/v1/webhooks/signals', {
        source: 'k8s-events',
        alert_name: 'KubePodNotReady',
        severity: 'critical',
        namespace,
        target: `api-${namespace}`,
      });
    }
    const outcomes = await waitFor(
      async () => {
        const items: Array<{ namespace: string; handling: { outcome: string } }> = (
          await service.app.inject({ url: '/api/v1/signals', headers: AUTH })
        ).json().items;
        const handled = items.filter((item) => item.handling.outcome !== 'queued');
        return handled.length === 2 ? handled : undefined;
      },
      { what: 'both signals handled by the consumer process', timeoutMs: 20_000 },
    );
    expect(
      Object.fromEntries(outcomes.map((item) => [item.namespace, item.handling.outcome])),
    ).toEqual({ muted: 'silenced', heard: 'incident_created' });
    consumer.kill('SIGTERM');
    expect(await new Promise((resolve) => consumer.once('exit', resolve))).toBe(0);
  });
});

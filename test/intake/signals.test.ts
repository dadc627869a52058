import { beforeAll, describe, expect, it, vi } from 'vitest';
import { SIGNALS_STREAM_MAX_LENGTH } from '../../src/features/intake/signal-schema.js';
import { backends, buildTestApp, postSigned, type TestApp } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

const URL = '/api/v1/webhooks/signals';

describe.each(backends())('signal webhook on %s', (backend) => {
  let app: TestApp['app'];
  beforeAll(async () => {
    ({ app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } }));
  });

  it('writes the signal to platform:signals with the spec defaults and answers at once', async () => {
    const response = await postSigned(app, URL, {
      source: 'grafana',
      alert_name: 'HighLatency',
      target: 'api',
    });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toEqual({
      success: true,
      message_id: expect.stringMatching(/^\d+-\d+$/),
      stream: 'platform:signals',
    });
    const listed = (await app.inject('/api/v1/signals?limit=1')).json();
    expect(listed.items[0]).toMatchObject({
      id: body.message_id,
      source: 'grafana',
      alert_name: 'HighLatency',
      severity: 'warning',
      namespace: 'default',
      target: 'api',
      message: '',
      labels: {},
      annotations: {},
      handling: { outcome: 'queued', incident_id: null },
    });
  });

  it.each([
    [{ alert_name: 'X', target: 't' }, 'body.source is required'],
    [{ source: 's', target: 't' }, 'body.alert_name is required'],
    [{ source: 's', alert_name: 'X' }, 'body.target is required'],
    [
      { source: 's', alert_name: 'X', target: 't', severity: 'P1' },
      'body.severity must be one of: info, warning, critical',
    ],
    [
      { source: 's', alert_name: 'X', target: 't', labels: [1] },
      'body.labels must be of type object or null',
    ],
    [{ source: 1, alert_name: 'X', target: 't' }, 'body.source must be of type string'],
  ])('rejects %j with 422 naming the field', async (payload, detail) => {
    const response = await postSigned(app, URL, payload);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({ detail, code: 'validation_failed' });
  });

  it('accepts labels and annotations as null', async () => {
    const response = await postSigned(app, URL, {
      source: 's',
      alert_name: 'X',
      target: 't',
      labels: null,
      annotations: null,
    });
    expect(response.statusCode).toBe(200);
  });

  it('pages the signal list newest first', async () => {
    for (const n of [1, 2, 3]) {
      await postSigned(app, URL, { source: 'paging', alert_name: `A${n}`, target: 't' });
    }
    const first = (await app.inject('/api/v1/signals?limit=2')).json();
    expect(first.items.map((s: { alert_name: string }) => s.alert_name)).toEqual(['A3', 'A2']);
    const second = (await app.inject(`/api/v1/signals?limit=2&cursor=${first.next_cursor}`)).json();
    expect(second.items[0].alert_name).toBe('A1');
    // A cursor we did not issue is the client's mistake, not ours.
    const forged = Buffer.from('c1:not-an-id').toString('base64url');
    const bad = await app.inject(`/api/v1/signals?cursor=${forged}`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toEqual({
      detail: 'cursor is not a cursor this service issued',
      code: 'bad_cursor',
    });
  });
});

describe.each(backends())('signal consumer on %s', (backend) => {
  it('turns warning and critical signals into alerts and only records info ones', async () => {
    const { app } = await buildTestApp({ backend });
    const warning = (
      await postSigned(app, URL, {
        source: 'k8s-events',
        alert_name: 'KubePodCrashLooping',
        severity: 'critical',
        namespace: 'consumer',
        target: 'cart-6b8f9c7d5-k2p9x',
      })
    ).json();
    const info = (
      await postSigned(app, URL, {
        source: 'k8s-events',
        alert_name: 'Deployed',
        severity: 'info',
        namespace: 'consumer',
        target: 'cart',
      })
    ).json();
    const handled = await waitFor(
      async () => {
        const items = (await app.inject('/api/v1/signals?limit=10')).json().items as Array<{
          id: string;
          handling: { outcome: string; incident_id: string | null };
        }>;
        const mine = items.filter((s) => s.id === warning.message_id || s.id === info.message_id);
        return mine.every((s) => s.handling.outcome !== 'queued') ? mine : undefined;
      },
      { what: 'both signals handled' },
    );
    const byId = new Map(handled.map((s) => [s.id, s.handling]));
    expect(byId.get(info.message_id)).toEqual({ outcome: 'recorded', incident_id: null });
    const created = byId.get(warning.message_id)!;
    expect(created.outcome).toBe('incident_created');
    const incident = (await app.inject(`/api/v1/incidents/${created.incident_id}`)).json();
    expect(incident).toMatchObject({
      namespace: 'consumer',
      workload: 'cart',
      severity: 'P1',
      alert_type: 'crash_loop',
      source: 'k8s-events',
    });
    const incidents = (await app.inject('/api/v1/incidents?namespace=consumer')).json();
    expect(incidents.items).toHaveLength(1);
  });

  it('handles a signal again soon after the database failed it, not after the 30 s claim', async () => {
    const { app } = await buildTestApp({ backend });
    // The first transaction of the alert the signal raises fails, as with the database away.
    const store = app.services.store;
    const withLock = store.withLock.bind(store);
    let failed = false;
    const failing = vi.spyOn(store, 'withLock').mockImplementation((names, work) => {
      const alertLock = [names].flat().some((name) => name.startsWith('alert:'));
      if (alertLock && !failed) {
        failed = true;
        return Promise.reject(new Error('database unavailable (test)'));
      }
      return withLock(names, work);
    });
    const sent = (
      await postSigned(app, URL, {
        source: 'k8s-events',
        alert_name: 'KubePodCrashLooping',
        severity: 'critical',
        namespace: 'consumer-retry',
        target: 'cart-6b8f9c7d5-k2p9x',
      })
    ).json();
    const handled = await waitFor(
      async () => {
        const items = (await app.inject('/api/v1/signals?limit=10')).json().items as Array<{
          id: string;
          handling: { outcome: string };
        }>;
        const mine = items.find((s) => s.id === sent.message_id);
        return mine && mine.handling.outcome !== 'queued' ? mine : undefined;
      },
      { what: 'the failed signal handled on its retry', timeoutMs: 5_000 },
    );
    expect(failed).toBe(true);
    expect(handled.handling.outcome).toBe('incident_created');
    failing.mockRestore();
  });

  it('loses nothing across a restart: signals accepted while no consumer ran are handled later', async () => {
    const first = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) {
      const response = await postSigned(first.app, URL, {
        source: 'restart',
        alert_name: 'KubePodNotReady',
        namespace: 'restart',
        target: `svc-${n}`,
      });
      ids.push(response.json().message_id);
    }
    await first.close();
    const second = await buildTestApp({ reuse: first, env: { SIGNAL_CONSUMER: 'true' } });
    const incidents = await waitFor(
      async () => {
        const list = (await second.app.inject('/api/v1/incidents?namespace=restart')).json();
        return list.items.length === 5 ? list.items : undefined;
      },
      { what: 'five incidents after the restart' },
    );
    expect(incidents.map((i: { hit_count: number }) => i.hit_count)).toEqual([1, 1, 1, 1, 1]);
  });
});

describe('signal stream failure', () => {
  it('answers 500 Failed to produce signal: <reason> and keeps serving', async () => {
    const { app } = await buildTestApp({ env: { SIGNAL_CONSUMER: 'false' } });
    await app.services.stream.close();
    const response = await postSigned(app, URL, { source: 's', alert_name: 'X', target: 't' });
    expect(response.statusCode).toBe(500);
    expect(response.json().detail).toMatch(/^Failed to produce signal: .+/);
    const alive = await postSigned(app, '/api/v1/webhooks/alerts', {
      alert_name: 'StillUp',
      target_resource: 'x',
    });
    expect(alive.statusCode).toBe(200);
  });
});

describe('signal stream length (spec, Limits)', () => {
  it('trims platform:signals to about 10000 entries', () => {
    // The trimming itself is checked per adapter in test/contract/stream.contract.test.ts.
    expect(SIGNALS_STREAM_MAX_LENGTH).toBe(10_000);
  });
});

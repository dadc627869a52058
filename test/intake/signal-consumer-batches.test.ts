import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { createAlertIntake } from '../../src/features/intake/alert-intake.js';
import {
  ensureSignalGroup,
  SIGNAL_CONSUMER_GROUP,
  startSignalConsumer,
} from '../../src/features/intake/signal-consumer.js';
import { recordSignalOutcomesOnce } from '../../src/features/intake/signal-outcome-records.js';
import { SIGNALS_STREAM } from '../../src/features/intake/signal-schema.js';
import { backends, buildTestApp, postSigned } from '../helpers/build-app.js';
import { waitFor } from '../helpers/wait-for.js';

const URL = '/api/v1/webhooks/signals';

async function sendSignal(
  app: Awaited<ReturnType<typeof buildTestApp>>['app'],
  namespace: string,
  target: string,
): Promise<string> {
  const response = await postSigned(app, URL, {
    source: 'batches',
    alert_name: 'KubePodCrashLooping',
    severity: 'warning',
    namespace,
    target,
  });
  expect(response.statusCode).toBe(200);
  return response.json().message_id;
}

/** The signal consumer reads and handles a busy stream in batches (CONTRACT, Signals). */
describe.each(backends())('signal consumer batches on %s', (backend) => {
  it('reads signals that arrive soon after a read together, not one read each', async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    const { services } = app;
    const reads: number[] = [];
    const readGroup = services.stream.readGroup.bind(services.stream);
    vi.spyOn(services.stream, 'readGroup').mockImplementation(async (...args) => {
      const entries = await readGroup(...args);
      if (entries.length > 0) reads.push(entries.length);
      return entries;
    });
    const stop = startSignalConsumer(services, createAlertIntake(services, []), {
      lingerMs: 1_000,
      blockMs: 200,
    });
    try {
      await sendSignal(app, 'linger', 'first');
      await waitFor(async () => (reads.length === 1 ? true : undefined), {
        what: 'the first signal read at once',
      });
      for (const n of [1, 2, 3, 4, 5]) await sendSignal(app, 'linger', `later-${n}`);
      const incidents = await waitFor(
        async () => {
          const items = (await app.inject('/api/v1/incidents?namespace=linger')).json().items;
          return items.length === 6 ? items : undefined;
        },
        { what: 'six incidents', timeoutMs: 5_000 },
      );
      expect(incidents).toHaveLength(6);
      expect(reads).toEqual([1, 5]);
    } finally {
      await stop();
    }
  });

  it('keeps an entry muted before muted, when its batch is looked up at once', async () => {
    const { app } = await buildTestApp({ backend, env: { SIGNAL_CONSUMER: 'false' } });
    const { services } = app;
    // Handled and muted by an earlier delivery that stopped before its acknowledgement.
    const muted = await sendSignal(app, 'redelivered', 'muted-one');
    await ensureSignalGroup(services);
    const taken = await services.stream.readGroup(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP, 'gone', {
      count: 1,
      blockMs: 0,
      claimIdleMs: 60_000,
    });
    expect(taken.map((entry) => entry.id)).toEqual([muted]);
    await recordSignalOutcomesOnce(services.store.db, [
      { entry_id: muted, outcome: 'silenced', incident_id: null, processed_at: Date.now() },
    ]);
    const fresh = await sendSignal(app, 'redelivered', 'fresh-one');
    await sleep(60);
    // Handled right the first time: not failed, logged and put right by a retry.
    const errors = vi.spyOn(services.log, 'error');
    const stop = startSignalConsumer(services, createAlertIntake(services, []), {
      claimIdleMs: 50,
    });
    try {
      await waitFor(
        async () => {
          const items = (await app.inject('/api/v1/signals?limit=10')).json().items as Array<{
            id: string;
            handling: { outcome: string };
          }>;
          return items.find((s) => s.id === fresh)?.handling.outcome === 'incident_created'
            ? true
            : undefined;
        },
        { what: 'the fresh signal handled' },
      );
    } finally {
      await stop();
    }
    const incidents = (await app.inject('/api/v1/incidents?namespace=redelivered')).json().items;
    expect(incidents.map((i: { workload: string }) => i.workload)).toEqual(['fresh-one']);
    const alerts = await services.store.db
      .selectFrom('alerts')
      .select(['outcome', 'fingerprint'])
      .execute();
    expect(alerts.map((a) => a.outcome)).toEqual(['created']);
    const consumed = (await services.metrics.signalsConsumed.get()).values;
    expect(errors).not.toHaveBeenCalled();
    expect(consumed.find((value) => value.labels.outcome === 'silenced')?.value).toBe(1);
  });
});

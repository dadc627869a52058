import os from 'node:os';
import type { Services } from '../../services.js';
import type { AlertIntake } from './alert-intake.js';
import { stringMap } from './alert-schema.js';
import { workloadOf } from './fingerprint.js';
import type { FlatAlert } from './normalize-alert.js';
import { SIGNALS_STREAM, signalFromStreamFields } from './signal-schema.js';

export const SIGNAL_CONSUMER_GROUP = 'signal-consumer';

export interface SignalConsumerOptions {
  consumerName?: string;
  blockMs?: number;
  /** An entry a consumer took but did not acknowledge for this long goes to another. */
  claimIdleMs?: number;
  batchSize?: number;
}

/**
 * Reads `platform:signals` as one member of a consumer group: `warning` and `critical`
 * signals become alerts through the alert pipeline, `info` signals are only recorded.
 * An entry is acknowledged after it is handled, so a crash re-delivers it; the outcome row
 * written in the alert's own transaction keeps a re-delivery from counting twice.
 * Returns a function that stops the loop once the entry in hand is done.
 */
export function startSignalConsumer(
  services: Services,
  intake: AlertIntake,
  options: SignalConsumerOptions = {},
): () => Promise<void> {
  const { stream, store, clock, log, metrics } = services;
  const consumer = options.consumerName ?? `${os.hostname()}-${process.pid}`;
  let stopped = false;
  let handling: Promise<void> = Promise.resolve();

  async function handle(id: string, fields: Record<string, string>): Promise<void> {
    const signal = signalFromStreamFields(fields);
    if (signal.severity === 'info') {
      await store.db
        .insertInto('signal_outcomes')
        .values({ entry_id: id, outcome: 'recorded', incident_id: null, processed_at: clock.now() })
        .onConflict((oc) => oc.column('entry_id').doNothing())
        .execute();
      metrics.signalsConsumed.labels('recorded').inc();
      return;
    }
    const alert: FlatAlert = {
      alert_name: signal.alert_name,
      severity: signal.severity,
      source: signal.source,
      target_resource: signal.target,
      namespace: signal.namespace,
      workload: workloadOf(signal.target),
      message: signal.message,
      labels: stringMap(signal.labels),
      annotations: stringMap(signal.annotations),
      status: 'firing',
    };
    const result = await intake.accept(alert, 'signal', {
      signalEntryId: id,
      requestedBy: 'signal-consumer',
    });
    metrics.signalsConsumed
      .labels(result.status === 'created' ? 'incident_created' : 'converged')
      .inc();
  }

  async function run(): Promise<void> {
    let backoffMs = 100;
    while (!stopped) {
      try {
        await stream.ensureGroup(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP);
        const entries = await stream.readGroup(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP, consumer, {
          count: options.batchSize ?? 50,
          blockMs: options.blockMs ?? 1000,
          claimIdleMs: options.claimIdleMs ?? 30_000,
        });
        for (const entry of entries) {
          if (stopped) return;
          handling = handle(entry.id, entry.fields);
          await handling;
          await stream.ack(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP, [entry.id]);
        }
        backoffMs = 100;
      } catch (error) {
        if (stopped) return;
        log.error({ err: error }, 'signal consumer: retrying after an error');
        await new Promise((resolve) => setTimeout(resolve, backoffMs));
        backoffMs = Math.min(backoffMs * 2, 10_000);
      }
    }
  }

  void run();
  return async () => {
    stopped = true;
    await handling.catch(() => undefined);
  };
}

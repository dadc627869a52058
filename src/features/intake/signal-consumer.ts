import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamEntry } from '../../ports/stream.js';
import type { Services } from '../../services.js';
import { publishEvent } from '../events/feed-events.js';
import type { AlertIntake } from './alert-intake.js';
import { stringMap } from './alert-schema.js';
import { workloadOf } from './fingerprint.js';
import type { FlatAlert } from './normalize-alert.js';
import { recordSignalOutcomesOnce, signalOutcomesOf } from './signal-outcome-records.js';
import { SIGNALS_STREAM, type StoredSignal, signalFromStreamFields } from './signal-schema.js';

export const SIGNAL_CONSUMER_GROUP = 'signal-consumer';

/** An entry tried and failed here: it may have got as far as its outcome, so it is looked up. */
const asRetried = (entry: StreamEntry): StreamEntry => ({ ...entry, redelivered: true });

/**
 * CONTRACT, Signals under overload: the group exists from the service's start, even when its
 * consumers run only in `npm run consumer`, so trimming spares what they have not handled yet.
 */
export function ensureSignalGroup({ stream }: Pick<Services, 'stream'>): Promise<void> {
  return stream.ensureGroup(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP);
}

export interface SignalConsumerOptions {
  consumerName?: string;
  blockMs?: number;
  /** An entry a consumer took but did not acknowledge for this long goes to another. */
  claimIdleMs?: number;
  batchSize?: number;
  /**
   * After a read that did not fill a batch, the next read waits until this long after the
   * last one began, so a busy stream is read in batches rather than a few entries at a time.
   * An idle consumer still wakes at once for the first new entry.
   */
  lingerMs?: number;
}

/**
 * A read, its transaction and the converge of what it returns cost about the same for five
 * entries as for fifty: at 5,000 signals a second, 10 ms gathers about fifty.
 */
const DEFAULT_LINGER_MS = 10;

/**
 * Reads `platform:signals` as one member of a consumer group: `warning` and `critical`
 * signals become alerts through the alert pipeline, `info` signals are only recorded.
 * An entry is acknowledged after it is handled, so a crash re-delivers it; the outcome row
 * written in the alert's own transaction keeps a re-delivery from counting twice.
 * Returns a function that stops the loop once the entry in hand is done.
 */
export function startSignalConsumer(
  services: Pick<Services, 'clock' | 'feed' | 'log' | 'metrics' | 'store' | 'stream'>,
  intake: AlertIntake,
  options: SignalConsumerOptions = {},
): () => Promise<void> {
  const { stream, store, clock, log, metrics } = services;
  const consumer = options.consumerName ?? `${os.hostname()}-${process.pid}`;
  let stopped = false;
  let handling: Promise<void> = Promise.resolve();
  // Entries this consumer failed to handle (the database was away): still pending for it,
  // so tried again here after the backoff instead of waiting for the idle claim (30 s).
  let unfinished: StreamEntry[] = [];

  /** `info` signals are only recorded, all of a batch in one statement. */
  async function recordInfo(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    const processedAt = clock.now();
    await recordSignalOutcomesOnce(
      store.db,
      ids.map((id) => ({
        entry_id: id,
        outcome: 'recorded',
        incident_id: null,
        processed_at: processedAt,
      })),
    );
    metrics.signalsConsumed.labels('recorded').inc(ids.length);
    for (const id of ids)
      publishEvent(services, 'signal.handled', { entry_id: id, outcome: 'recorded' });
  }

  /** How entries handled before (a re-delivery) were handled: looked up once per batch. */
  async function outcomesBefore(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const outcomes = await signalOutcomesOf(store.db, ids);
    return new Map(outcomes.map((row) => [row.entry_id, row.outcome]));
  }

  async function raiseAlert(
    id: string,
    signal: StoredSignal,
    before: string | null,
  ): Promise<void> {
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
      signalOutcomeBefore: before,
      requestedBy: 'signal-consumer',
    });
    const outcome =
      result.status === 'created'
        ? 'incident_created'
        : result.status === 'silenced'
          ? 'silenced'
          : 'converged';
    metrics.signalsConsumed.labels(outcome).inc();
    publishEvent(services, 'signal.handled', {
      entry_id: id,
      outcome,
      incident_id: result.incident_id,
    });
  }

  /**
   * Entries are handled together: alerts of one fingerprint share a transaction, and only
   * entries that were handled are acknowledged. The rest are kept to be tried again.
   */
  async function handleBatch(entries: StreamEntry[]): Promise<void> {
    const signals = entries.map((entry) => signalFromStreamFields(entry.fields));
    const isInfo = (index: number) => signals[index]!.severity === 'info';
    let before: Map<string, string>;
    try {
      // A first delivery was never handled: only entries delivered before are looked up.
      const maybeHandled = entries.filter((entry, i) => !isInfo(i) && entry.redelivered);
      before = await outcomesBefore(maybeHandled.map((entry) => entry.id));
    } catch (error) {
      unfinished = entries.map(asRetried);
      throw error;
    }
    // Every alert of the batch reaches the converger in this one tick: one transaction.
    const work = entries.map((entry, index) =>
      isInfo(index)
        ? undefined
        : raiseAlert(entry.id, signals[index]!, before.get(entry.id) ?? null),
    );
    const recorded = recordInfo(entries.filter((_e, i) => isInfo(i)).map((e) => e.id));
    const outcomes = await Promise.allSettled(entries.map((_e, index) => work[index] ?? recorded));
    const done = entries.filter((_entry, index) => outcomes[index]!.status === 'fulfilled');
    if (done.length > 0) {
      await stream.ack(
        SIGNALS_STREAM,
        SIGNAL_CONSUMER_GROUP,
        done.map((entry) => entry.id),
      );
    }
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure) {
      unfinished = entries
        .filter((_entry, index) => outcomes[index]!.status === 'rejected')
        .map(asRetried);
      throw (failure as PromiseRejectedResult).reason;
    }
  }

  async function run(): Promise<void> {
    let backoffMs = 100;
    // Made once, and again after any error (the stream may have been deleted meanwhile): an
    // idle consumer costs one blocking read at a time, not a write each round.
    let groupMade = false;
    const batchSize = options.batchSize ?? 200;
    const lingerMs = options.lingerMs ?? DEFAULT_LINGER_MS;
    let nextReadAt = 0;
    while (!stopped) {
      try {
        if (!groupMade) await stream.ensureGroup(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP);
        groupMade = true;
        // Monotonic, and never longer than the linger: a wall clock stepped back must not
        // hold the consumer back.
        const lingering = Math.min(nextReadAt - performance.now(), lingerMs);
        if (lingering > 0) await sleep(lingering);
        if (stopped) return;
        const readAt = performance.now();
        const entries =
          unfinished.length > 0
            ? unfinished.splice(0)
            : await stream.readGroup(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP, consumer, {
                count: batchSize,
                // A new signal ends the wait at once; the length only sets how often an idle
                // consumer starts a new read (a few statements on the SQL stream).
                blockMs: options.blockMs ?? 5000,
                claimIdleMs: options.claimIdleMs ?? 30_000,
              });
        if (stopped) return;
        nextReadAt = entries.length > 0 && entries.length < batchSize ? readAt + lingerMs : 0;
        handling = handleBatch(entries);
        await handling;
        backoffMs = 100;
      } catch (error) {
        if (stopped) return;
        groupMade = false;
        log.error({ err: error }, 'signal consumer: retrying after an error');
        await sleep(backoffMs);
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

import type { Services } from '../../services.js';
import { SIGNAL_CONSUMER_GROUP } from './signal-consumer.js';
import { SIGNALS_STREAM, SIGNALS_STREAM_MAX_LENGTH } from './signal-schema.js';

/**
 * CONTRACT, Signals under overload: at this many unhandled signals the webhook answers 503,
 * since the stream keeps about this many entries and trimming never drops an unhandled one.
 */
export const SIGNALS_BACKLOG_LIMIT = SIGNALS_STREAM_MAX_LENGTH;
export const SIGNALS_BACKLOG_RETRY_AFTER_SECONDS = 5;

/**
 * The signal webhook is benchmarked: one look at the backlog serves every request of this
 * process for this long. A full backlog may overshoot by what other replicas accept
 * meanwhile, a few hundred at most: "about" 10000, as the contract allows.
 */
const lookEveryMs = 200;

interface Reading {
  count: number;
  oldestMs: number | null;
  /** performance.now() of the look: a cache age, not a domain time. */
  at: number;
}

export interface SignalBacklog {
  /** The backlog as of at most ~200 ms ago, counting this process's accepts since. */
  current(): Promise<{ count: number; oldestMs: number | null }>;
  /** Counts an accepted signal until the next look. */
  noteAccepted(): void;
}

/** One per app: the signal gauges of `/metrics` read it at each scrape. */
export function createSignalBacklog(
  services: Pick<Services, 'stream' | 'clock' | 'metrics' | 'log'>,
): SignalBacklog {
  const { stream, clock, metrics, log } = services;
  let last: Reading | undefined;
  let looking: Promise<Reading> | undefined;
  let full = false;

  function noteFullness({ count, oldestMs }: Reading) {
    if (count >= SIGNALS_BACKLOG_LIMIT === full) return;
    full = !full;
    const oldestAt = oldestMs === null ? null : new Date(oldestMs).toISOString();
    if (full) {
      log.warn(
        { backlog: count, oldest_unhandled_at: oldestAt },
        'signal backlog full: the signal webhook answers 503 until the consumers catch up',
      );
    } else log.info({ backlog: count }, 'signal backlog below its limit: signals accepted again');
  }

  function look(): Promise<Reading> {
    // Requests arriving while a look is under way share it.
    looking ??= stream
      .backlog(SIGNALS_STREAM, SIGNAL_CONSUMER_GROUP)
      .then((backlog) => {
        last = { ...backlog, at: performance.now() };
        noteFullness(last);
        return last;
      })
      .finally(() => {
        looking = undefined;
      });
    return looking;
  }

  async function current() {
    if (last && performance.now() - last.at < lookEveryMs) return last;
    return look();
  }

  metrics.readSignalBacklog = async () => {
    try {
      const { count, oldestMs } = await current();
      metrics.signalsBacklog.set(count);
      const ageMs = oldestMs === null ? 0 : Math.max(0, clock.now() - oldestMs);
      metrics.signalsOldestUnhandledAge.set(ageMs / 1000);
    } catch (error) {
      // A scrape still answers; the gauges keep their last values.
      log.warn({ err: error }, 'signal backlog not read for /metrics');
    }
  };

  return {
    current,
    noteAccepted() {
      if (last) last.count++;
    },
  };
}

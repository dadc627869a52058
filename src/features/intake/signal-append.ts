import type { Services } from '../../services.js';
import type { SignalBacklog } from './signal-backlog.js';
import { SIGNALS_STREAM, SIGNALS_STREAM_MAX_LENGTH } from './signal-schema.js';

/** How the signal webhook hands an accepted signal on, and counts it once it is there. */
export interface SignalAppend {
  /** The stream entry's id. */
  append(fields: Record<string, string>): Promise<string>;
  /** After the append: the backlog and `signals_produced_total` count it. */
  produced(severity: string): void;
}

export function createSignalAppend(
  services: Pick<Services, 'config' | 'metrics' | 'stream'>,
  backlog: Pick<SignalBacklog, 'noteAccepted'>,
): SignalAppend {
  const { config, metrics, stream } = services;
  if (config.benchBound === 'signal-append') return answeringOnNextTurn();
  return {
    append: (fields) => stream.append(SIGNALS_STREAM, fields, SIGNALS_STREAM_MAX_LENGTH),
    produced(severity) {
      backlog.noteAccepted();
      metrics.signalsProduced.labels(severity).inc();
    },
  };
}

/**
 * BENCH_BOUND=signal-append only (bench/README.md, Upper bounds): no entry is appended, and
 * every answer of a tick is released together on the next turn of the event loop, as the
 * embedded stream's group commit releases its appends. With no entry there is no consumer
 * work, no outcome row and no commit, and nothing is counted as produced.
 */
function answeringOnNextTurn(): SignalAppend {
  let turn: Promise<string> | undefined;
  return {
    append() {
      turn ??= new Promise<string>((resolve) =>
        setImmediate(() => {
          turn = undefined;
          resolve(`${Date.now()}-0`);
        }),
      );
      return turn;
    },
    produced() {},
  };
}

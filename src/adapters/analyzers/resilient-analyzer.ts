import {
  BrokenCircuitError,
  type BulkheadPolicy,
  bulkhead,
  type CircuitBreakerPolicy,
  CircuitState,
  ConsecutiveBreaker,
  circuitBreaker,
  handleAll,
  IsolatedCircuitError,
  TimeoutStrategy,
  timeout,
  wrap,
} from 'cockatiel';
import type { Analyzer, ErrorAnalysis, ErrorContext } from '../../ports/analyzer.js';
import { ANALYZER_LIMITS } from '../../ports/analyzer.js';

/**
 * Timeout, concurrency limit and circuit breaker around analyzer calls (spec, Limits:
 * "Analyzer call timeout 60 seconds", "Analyzer circuit breaker: opens after 5 consecutive
 * failures for 60 seconds; the call is skipped while open", "Analyzer concurrency: 3 calls at
 * once, others wait"). Generic over the call so the analysis experts can share it.
 *
 * Outcome of one call:
 * - resolves with the call's value on success;
 * - resolves with `null` only when the call was skipped because the breaker is open (the inner
 *   call is not made);
 * - rejects with the call's own error on failure, or with cockatiel's `TaskCancelledError`
 *   ("Operation timed out after <n>ms") on timeout, so the caller records the failure.
 * Every rejection counts toward the breaker, timeouts included (and an abort by the caller's
 * own signal, which only happens at shutdown).
 */

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface ResilienceOptions {
  /** Per call, from when the call starts running (time spent waiting for a slot is not counted). */
  timeoutMs?: number;
  concurrency?: number;
  failureThreshold?: number;
  /** How long the breaker stays open before the next call is let through as a test. */
  openMs?: number;
  onStateChange?: (state: BreakerState) => void;
}

export interface Resilience {
  /**
   * Runs `call` under the policies. `call` receives a signal that aborts on timeout (and when
   * `signal` aborts); it must honour it, or its work continues after its slot is released.
   * `null` means skipped because the breaker is open, so `T` excludes null and undefined.
   */
  run<T extends NonNullable<unknown>>(
    call: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T | null>;
  /**
   * The breaker's state. After `openMs` it still reads `open` until the next call arrives;
   * that call is the half-open test.
   */
  breakerState(): BreakerState;
  /** Calls holding a concurrency slot. */
  inFlight(): number;
  /** Calls waiting for a slot. */
  waiting(): number;
}

export interface ResilientAnalyzer {
  readonly provider: string;
  /** `null` when skipped because the breaker is open; see {@link Resilience.run}. */
  analyze(context: ErrorContext, signal?: AbortSignal): Promise<ErrorAnalysis | null>;
  /**
   * Any other model call under the same policies (the analysis experts), so every call to the
   * model shares one timeout, concurrency limit and breaker (spec, Limits: the analyzer rows).
   */
  run: Resilience['run'];
  breakerState(): BreakerState;
  inFlight(): number;
  waiting(): number;
}

/** "Others wait": the queue is unbounded in practice, yet finite so its length can be read. */
const QUEUE_CAPACITY = Number.MAX_SAFE_INTEGER;

const STATE_NAMES: Record<CircuitState, BreakerState> = {
  [CircuitState.Closed]: 'closed',
  [CircuitState.Open]: 'open',
  [CircuitState.HalfOpen]: 'half-open',
  [CircuitState.Isolated]: 'open',
};

export function createResilience(options: ResilienceOptions = {}): Resilience {
  const concurrency = options.concurrency ?? ANALYZER_LIMITS.concurrency;
  const slots: BulkheadPolicy = bulkhead(concurrency, QUEUE_CAPACITY);
  const breaker: CircuitBreakerPolicy = circuitBreaker(handleAll, {
    halfOpenAfter: options.openMs ?? ANALYZER_LIMITS.openMs,
    breaker: new ConsecutiveBreaker(options.failureThreshold ?? ANALYZER_LIMITS.failureThreshold),
  });
  const deadline = timeout(
    options.timeoutMs ?? ANALYZER_LIMITS.timeoutMs,
    TimeoutStrategy.Aggressive,
  );
  if (options.onStateChange) {
    const notify = options.onStateChange;
    breaker.onStateChange((state) => notify(STATE_NAMES[state]));
  }
  // Outermost first. The slot comes first, so a queued call checks the breaker only when it
  // may run (calls queued behind failures are skipped, not run); the timeout is innermost, so
  // waiting for a slot never counts against it, and a timeout is a failure the breaker sees.
  const policy = wrap(slots, breaker, deadline);
  return {
    async run(call, signal) {
      try {
        return await policy.execute(({ signal: inner }) => call(inner), signal);
      } catch (error) {
        if (error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError) {
          return null;
        }
        throw error;
      }
    },
    breakerState: () => STATE_NAMES[breaker.state],
    inFlight: () => concurrency - slots.executionSlots,
    waiting: () => QUEUE_CAPACITY - slots.queueSlots,
  };
}

export function withResilience(analyzer: Analyzer, options?: ResilienceOptions): ResilientAnalyzer {
  const resilience = createResilience(options);
  return {
    provider: analyzer.provider,
    analyze: (context, signal) =>
      resilience.run((inner) => analyzer.analyze(context, inner), signal),
    run: resilience.run,
    breakerState: resilience.breakerState,
    inFlight: resilience.inFlight,
    waiting: resilience.waiting,
  };
}

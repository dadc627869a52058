import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  type BreakerState,
  createResilience,
  withResilience,
} from '../../src/adapters/analyzers/resilient-analyzer.js';
import type { Analyzer, ErrorAnalysis, ErrorContext } from '../../src/ports/analyzer.js';
import { errorContext } from './error-contexts.js';

/**
 * A real Analyzer whose behaviour the test sets: it resolves after `delayMs` unless its
 * signal aborts, or fails when `fail` is set. It records calls, concurrency and aborts.
 */
function scriptedAnalyzer(script: { delayMs?: number; fail?: boolean | 'hang' } = {}) {
  const stats = { calls: 0, running: 0, maxRunning: 0, aborted: 0, completed: 0 };
  const analysis: ErrorAnalysis = {
    root_cause: 'r',
    impact: 'i',
    fix_suggestion: 'f',
    prevention: 'p',
    confidence: 0.5,
    analyzed_by: 'scripted',
  };
  const analyzer: Analyzer & { script: typeof script; stats: typeof stats } = {
    provider: 'scripted',
    script,
    stats,
    async analyze(_context: ErrorContext, signal: AbortSignal) {
      stats.calls++;
      stats.running++;
      stats.maxRunning = Math.max(stats.maxRunning, stats.running);
      try {
        if (analyzer.script.fail === true) throw new Error('upstream exploded');
        const delay = analyzer.script.fail === 'hang' ? 60_000 : (analyzer.script.delayMs ?? 0);
        await sleep(delay, undefined, { signal }).catch((error: unknown) => {
          stats.aborted++;
          throw error;
        });
        stats.completed++;
        return analysis;
      } finally {
        stats.running--;
      }
    },
  };
  return analyzer;
}

const context = errorContext({ type: 'KeyError', value: "'x'" });

describe('withResilience: timeout', () => {
  it('rejects after timeoutMs and aborts the inner signal', async () => {
    const inner = scriptedAnalyzer({ fail: 'hang' });
    const resilient = withResilience(inner, { timeoutMs: 50 });
    const started = Date.now();
    await expect(resilient.analyze(context)).rejects.toThrow(/timed out after 50ms/);
    expect(Date.now() - started).toBeLessThan(1_000);
    await sleep(10);
    expect(inner.stats.aborted).toBe(1);
    expect(resilient.inFlight()).toBe(0);
  });

  it('passes the value through on success', async () => {
    const resilient = withResilience(scriptedAnalyzer({ delayMs: 5 }));
    expect(resilient.provider).toBe('scripted');
    await expect(resilient.analyze(context)).resolves.toMatchObject({ analyzed_by: 'scripted' });
    expect(resilient.breakerState()).toBe('closed');
  });
});

describe('withResilience: concurrency', () => {
  it('runs at most 3 at once, queues the rest, and finishes all 10', async () => {
    const inner = scriptedAnalyzer({ delayMs: 40 });
    const resilient = withResilience(inner, { concurrency: 3 });
    const calls = Array.from({ length: 10 }, () => resilient.analyze(context));
    await sleep(10);
    expect(resilient.inFlight()).toBe(3);
    expect(resilient.waiting()).toBe(7);
    const results = await Promise.all(calls);
    expect(results.every((r) => r?.analyzed_by === 'scripted')).toBe(true);
    expect(inner.stats.maxRunning).toBe(3);
    expect(inner.stats.completed).toBe(10);
    expect(resilient.inFlight()).toBe(0);
    expect(resilient.waiting()).toBe(0);
  });

  it('does not count time spent waiting for a slot against the timeout', async () => {
    const inner = scriptedAnalyzer({ delayMs: 60 });
    const resilient = withResilience(inner, { concurrency: 1, timeoutMs: 100 });
    const results = await Promise.all([1, 2, 3].map(() => resilient.analyze(context)));
    expect(results.every((r) => r !== null)).toBe(true);
  });
});

describe('withResilience: circuit breaker', () => {
  it('opens after 5 consecutive failures, skips while open, half-opens after openMs, closes on success', async () => {
    const inner = scriptedAnalyzer({ fail: true });
    const states: BreakerState[] = [];
    const resilient = withResilience(inner, {
      failureThreshold: 5,
      openMs: 100,
      onStateChange: (state) => states.push(state),
    });

    for (let i = 0; i < 4; i++) {
      await expect(resilient.analyze(context)).rejects.toThrow('upstream exploded');
    }
    expect(resilient.breakerState()).toBe('closed');
    await expect(resilient.analyze(context)).rejects.toThrow('upstream exploded');
    expect(resilient.breakerState()).toBe('open');
    expect(inner.stats.calls).toBe(5);

    // spec: "the call is skipped while open"
    await expect(resilient.analyze(context)).resolves.toBeNull();
    expect(inner.stats.calls).toBe(5);

    await sleep(120);
    inner.script.fail = false;
    await expect(resilient.analyze(context)).resolves.not.toBeNull();
    expect(inner.stats.calls).toBe(6);
    expect(resilient.breakerState()).toBe('closed');
    expect(states).toEqual(['open', 'half-open', 'closed']);
  });

  it('reopens when the half-open test call fails', async () => {
    const inner = scriptedAnalyzer({ fail: true });
    const resilient = withResilience(inner, { failureThreshold: 2, openMs: 50 });
    for (let i = 0; i < 2; i++) await expect(resilient.analyze(context)).rejects.toThrow();
    await sleep(70);
    await expect(resilient.analyze(context)).rejects.toThrow('upstream exploded');
    expect(resilient.breakerState()).toBe('open');
    await expect(resilient.analyze(context)).resolves.toBeNull();
  });

  it('counts timeouts as failures', async () => {
    const inner = scriptedAnalyzer({ fail: 'hang' });
    const resilient = withResilience(inner, { timeoutMs: 20, failureThreshold: 5, openMs: 60_000 });
    for (let i = 0; i < 5; i++) {
      await expect(resilient.analyze(context)).rejects.toThrow(/timed out/);
    }
    expect(resilient.breakerState()).toBe('open');
    await expect(resilient.analyze(context)).resolves.toBeNull();
    expect(inner.stats.calls).toBe(5);
  });

  it('resets the failure count after a success', async () => {
    const inner = scriptedAnalyzer({ fail: true });
    const resilient = withResilience(inner, { failureThreshold: 3 });
    for (let i = 0; i < 2; i++) await expect(resilient.analyze(context)).rejects.toThrow();
    inner.script.fail = false;
    await resilient.analyze(context);
    inner.script.fail = true;
    for (let i = 0; i < 2; i++) await expect(resilient.analyze(context)).rejects.toThrow();
    expect(resilient.breakerState()).toBe('closed');
  });

  it('skips queued calls once the breaker opens instead of running them', async () => {
    const inner = scriptedAnalyzer({ fail: true });
    const resilient = withResilience(inner, { concurrency: 1, failureThreshold: 2 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => resilient.analyze(context)),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect(inner.stats.calls).toBe(2);
  });
});

describe('createResilience: generic calls', () => {
  it('wraps any call that takes a signal', async () => {
    const resilience = createResilience({ timeoutMs: 30 });
    await expect(resilience.run(async () => 42)).resolves.toBe(42);
    let innerSignal: AbortSignal | undefined;
    const slow = resilience.run((signal) => {
      innerSignal = signal;
      return sleep(1_000, 'late', { signal });
    });
    await expect(slow).rejects.toThrow(/timed out/);
    expect(innerSignal?.aborted).toBe(true);
  });

  it('aborts the inner call when the caller signal aborts', async () => {
    const resilience = createResilience();
    const controller = new AbortController();
    let innerSignal: AbortSignal | undefined;
    const call = resilience.run((signal) => {
      innerSignal = signal;
      return sleep(1_000, 'late', { signal });
    }, controller.signal);
    controller.abort();
    await expect(call).rejects.toThrow();
    expect(innerSignal?.aborted).toBe(true);
  });
});

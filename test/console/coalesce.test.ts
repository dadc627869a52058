import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { coalesce } from '../../console/src/coalesce.js';

/** A page's reloads under a storm of feed events: one per window, none after cancel. */
describe('coalesce', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('runs once per window however many requests come', () => {
    const run = vi.fn();
    const reload = coalesce(run, 1000);
    for (let i = 0; i < 3000; i++) reload.request();
    expect(run).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(run).toHaveBeenCalledTimes(1);
    reload.request();
    reload.request();
    vi.advanceTimersByTime(999);
    expect(run).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(1);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('drops a pending call when cancelled', () => {
    const run = vi.fn();
    const reload = coalesce(run, 500);
    reload.request();
    reload.cancel();
    vi.advanceTimersByTime(1000);
    expect(run).not.toHaveBeenCalled();
  });
});

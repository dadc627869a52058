import { describe, expect, it } from 'vitest';
import { batchLoader, throttled } from '../../console/src/batch-loader.js';

/** Reads by id in batches, and reads that need only be fresh, at most once a window. */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('batchLoader', () => {
  it('asks once for the ids wanted within its window, at most maxIds a call, one call at a time', async () => {
    const calls: string[][] = [];
    let running = 0;
    let overlapped = false;
    const loaded: string[] = [];
    const loader = batchLoader<string>({
      delayMs: 20,
      maxIds: 100,
      load: async (ids) => {
        running += 1;
        overlapped ||= running > 1;
        calls.push(ids);
        await sleep(5);
        running -= 1;
        return ids.map((id) => `record ${id}`);
      },
      onLoaded: (items) => loaded.push(...items),
    });
    for (let i = 0; i < 250; i++) loader.want(`id-${i % 230}`);
    expect(loader.waiting).toBe(230);
    await sleep(120);
    expect(calls.map((ids) => ids.length)).toEqual([100, 100, 30]);
    expect(new Set(calls.flat()).size).toBe(230);
    expect(loaded).toHaveLength(230);
    expect(overlapped).toBe(false);
    expect(loader.waiting).toBe(0);
  });

  it('does not ask twice for an id being read, and asks again for one wanted after its answer', async () => {
    const calls: string[][] = [];
    const loader = batchLoader<string>({
      delayMs: 10,
      load: async (ids) => {
        calls.push(ids);
        await sleep(20);
        return ids;
      },
      onLoaded: () => {},
    });
    loader.want('a');
    await sleep(15);
    loader.want('a');
    loader.want('b');
    await sleep(80);
    expect(calls).toEqual([['a'], ['b']]);
    loader.want('a');
    await sleep(40);
    expect(calls).toEqual([['a'], ['b'], ['a']]);
  });

  it('survives a failed call, and drops answers once stopped', async () => {
    const loaded: string[] = [];
    let fail = true;
    const loader = batchLoader<string>({
      delayMs: 5,
      load: async (ids) => {
        if (fail) throw new Error('503');
        return ids;
      },
      onLoaded: (items) => loaded.push(...items),
    });
    loader.want('a');
    await sleep(30);
    expect(loaded).toEqual([]);
    fail = false;
    loader.want('a');
    await sleep(30);
    expect(loaded).toEqual(['a']);
    loader.want('b');
    loader.stop();
    await sleep(30);
    expect(loaded).toEqual(['a']);
  });
});

describe('throttled', () => {
  it('runs at once, then once more at the end of a window that had calls', async () => {
    let runs = 0;
    const read = throttled(() => {
      runs += 1;
    }, 30);
    read.call();
    expect(runs).toBe(1);
    for (let i = 0; i < 50; i++) read.call();
    expect(runs).toBe(1);
    await sleep(45);
    expect(runs).toBe(2);
    await sleep(45);
    expect(runs).toBe(2);
    // A quiet window has passed: the next call runs at once; stop() drops the trailing one.
    read.call();
    read.call();
    expect(runs).toBe(3);
    read.stop();
    await sleep(45);
    expect(runs).toBe(3);
  });
});

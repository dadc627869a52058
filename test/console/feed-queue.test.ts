import { describe, expect, it } from 'vitest';
import { slicedQueue } from '../../console/src/feed-queue.js';

/** Feed events reach the views in slices of a few milliseconds, in order, none lost. */

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('slicedQueue', () => {
  it('hands every item over in order, in the tasks after the push, a budget per task', async () => {
    let clock = 0;
    const handled: number[] = [];
    const queue = slicedQueue<number>(
      (item) => {
        handled.push(item);
        clock += 1;
      },
      3,
      () => clock,
    );
    for (let i = 0; i < 10; i++) queue.push(i);
    expect(handled).toEqual([]);
    expect(queue.waiting).toBe(10);
    await nextTask();
    expect(handled).toEqual([0, 1, 2]);
    for (let slice = 0; slice < 3; slice++) await nextTask();
    expect(handled).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(queue.waiting).toBe(0);
    queue.push(10);
    await nextTask();
    expect(handled.at(-1)).toBe(10);
  });

  it('goes on past an item whose handling throws, and reports the error', async () => {
    const handled: string[] = [];
    const reported: unknown[] = [];
    const onError = (error: unknown) => reported.push(error);
    process.on('uncaughtException', onError);
    try {
      const queue = slicedQueue<string>((item) => {
        if (item === 'bad') throw new Error('listener bug');
        handled.push(item);
      });
      for (const item of ['a', 'bad', 'b']) queue.push(item);
      await nextTask();
      await nextTask();
      expect(handled).toEqual(['a', 'b']);
      expect(reported).toEqual([new Error('listener bug')]);
    } finally {
      process.off('uncaughtException', onError);
    }
  });
});

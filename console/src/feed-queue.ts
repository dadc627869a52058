/**
 * Feed events handed to the views in slices: a chunk of the stream can hold hundreds of events
 * (a storm, or the replay after a reconnect), and handling them all in the task that read the
 * chunk would block the page. Each slice runs for at most `budgetMs`, then yields to the
 * browser until the next task. Free of the DOM so that Node tests the slicing.
 */
export interface SlicedQueue<T> {
  push(item: T): void;
  /** Items waiting for a slice. */
  readonly waiting: number;
}

export function slicedQueue<T>(
  handle: (item: T) => void,
  budgetMs = 8,
  now: () => number = () => performance.now(),
): SlicedQueue<T> {
  let items: T[] = [];
  let head = 0;
  let scheduled = false;

  const slice = () => {
    const until = now() + budgetMs;
    // At least one item per slice, however slow the clock says the last one was.
    do {
      const item = items[head] as T;
      head += 1;
      try {
        handle(item);
      } catch (error) {
        // One listener's bug must not stop the feed for every view: report it, go on.
        setTimeout(() => {
          throw error;
        });
      }
    } while (head < items.length && now() < until);
    if (head < items.length) {
      setTimeout(slice);
      return;
    }
    items = [];
    head = 0;
    scheduled = false;
  };

  return {
    push(item) {
      items.push(item);
      if (scheduled) return;
      scheduled = true;
      setTimeout(slice);
    },
    get waiting() {
      return items.length - head;
    },
  };
}

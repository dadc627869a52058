interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: items added in the same tick are written by one `write` call, and items
 * added while a write runs go in the next one. Each `add` settles with its write, and with
 * the write's result at its own position when the write returns one per item.
 *
 * A write is all or nothing, so one bad item would fail every item that happened to share
 * its batch. When a batch fails, each of its items is written again on its own: the bad one
 * fails alone and its neighbours succeed (CONTRACT, Bad input: one bad item never fails its
 * neighbours).
 */
export function groupCommit<T, R = undefined>(
  // biome-ignore lint/suspicious/noConfusingVoidType: writers with no per-item result return nothing
  write: (items: T[]) => Promise<R[] | undefined | void>,
) {
  let queue: Waiting<T, R>[] = [];
  let scheduled = false;
  let writing = false;
  const idle: Array<() => void> = [];

  function schedule() {
    if (scheduled || writing) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void flush();
    });
  }

  async function writeTogether(batch: Waiting<T, R>[]) {
    const results = await write(batch.map((waiting) => waiting.item));
    batch.forEach((waiting, index) => {
      waiting.resolve((results ? results[index] : undefined) as R);
    });
  }

  async function flush() {
    const batch = queue;
    queue = [];
    writing = true;
    try {
      await writeTogether(batch);
    } catch (error) {
      if (batch.length === 1) batch[0]!.reject(error);
      else for (const waiting of batch) await writeTogether([waiting]).catch(waiting.reject);
    } finally {
      writing = false;
      if (queue.length > 0) schedule();
      else for (const wake of idle.splice(0)) wake();
    }
  }

  return {
    add(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
    /** Settles once every item added so far is written (or failed): a closing owner waits. */
    settled(): Promise<void> {
      if (queue.length === 0 && !scheduled && !writing) return Promise.resolve();
      return new Promise((resolve) => idle.push(resolve));
    },
  };
}

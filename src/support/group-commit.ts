interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: items added in the same tick are written by one `write` call, and items
 * added while a write runs go in the next one. Each `add` settles with its write.
 */
export function groupCommit<T>(write: (items: T[]) => Promise<void>) {
  let queue: Waiting<T>[] = [];
  let scheduled = false;
  let writing = false;

  function schedule() {
    if (scheduled || writing) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void flush();
    });
  }

  async function flush() {
    const batch = queue;
    queue = [];
    writing = true;
    try {
      await write(batch.map((waiting) => waiting.item));
      for (const waiting of batch) waiting.resolve();
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    } finally {
      writing = false;
      if (queue.length > 0) schedule();
    }
  }

  return {
    add(item: T): Promise<void> {
      return new Promise((resolve, reject) => {
        queue.push({ item, resolve, reject });
        schedule();
      });
    },
  };
}

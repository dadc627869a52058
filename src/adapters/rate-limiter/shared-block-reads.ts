import type { CredentialFailures } from '../../ports/credential-failures.js';

interface Waiter {
  resolve: (waitMs: number) => void;
  reject: (error: unknown) => void;
}

/**
 * Every guarded request asks whether its address is blocked; against Redis that is one
 * transaction each, which cost a fifth of the error-tracker webhook's CPU. Here the requests
 * of one event-loop turn share one read per address.
 *
 * The order the guard promises is kept. Reads asked before a failure are sent before it is
 * recorded, so they never see it. Reads asked after it wait until every failure recorded so
 * far has been answered, so they always see it: ioredis sends the count's script in its next
 * pipeline, which may leave after a read sent in the meantime. While failures are in
 * flight, a further failure leaves the waiting reads waiting (they then see it too), which
 * errs toward refusing only during a burst of wrong credentials.
 */
export function sharedBlockReads(failures: CredentialFailures): CredentialFailures {
  let waiting = new Map<string, Waiter[]>();
  let scheduled = false;
  const recording = new Set<Promise<void>>();

  function sendReads() {
    const batch = waiting;
    waiting = new Map();
    for (const [address, waiters] of batch) {
      failures.blockedFor(address).then(
        (waitMs) => {
          for (const waiter of waiters) waiter.resolve(waitMs);
        },
        (error: unknown) => {
          for (const waiter of waiters) waiter.reject(error);
        },
      );
    }
  }

  return {
    record(address) {
      if (recording.size === 0) sendReads();
      const count = failures.record(address);
      const settled: Promise<void> = count.then(
        () => void recording.delete(settled),
        () => void recording.delete(settled),
      );
      recording.add(settled);
      return count;
    },
    blockedFor(address) {
      return new Promise((resolve, reject) => {
        const waiters = waiting.get(address);
        if (waiters) waiters.push({ resolve, reject });
        else waiting.set(address, [{ resolve, reject }]);
        if (scheduled) return;
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          if (recording.size === 0) sendReads();
          else void Promise.all(recording).then(sendReads);
        });
      });
    },
  };
}

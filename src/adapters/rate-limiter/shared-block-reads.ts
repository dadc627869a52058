import type { CredentialFailures } from '../../ports/credential-failures.js';

interface Waiter {
  resolve: (waitMs: number) => void;
  reject: (error: unknown) => void;
}

/**
 * Every guarded request asks whether its address is blocked from its credential; against
 * Redis that is one transaction each, which cost a fifth of the error-tracker webhook's CPU.
 * Here the requests of one event-loop turn share one read per key (an address and a kind).
 *
 * The order the guard promises is kept, per key. Reads asked before a failure are sent
 * before it is recorded, so they never see it. Reads asked after it wait until no failure of
 * their key is in flight any more, so they always see it: ioredis sends the count's
 * script in its next pipeline, which may leave after a read sent in the meantime. While a
 * failure is in flight, a further one leaves the waiting reads waiting (they then see it
 * too), which errs toward refusing, and only during a burst of wrong credentials.
 */
export function sharedBlockReads(failures: CredentialFailures): CredentialFailures {
  const waiting = new Map<string, Waiter[]>();
  const recording = new Map<string, Set<Promise<void>>>();
  let scheduled = false;

  function sendRead(key: string) {
    const waiters = waiting.get(key);
    if (!waiters) return;
    waiting.delete(key);
    Promise.resolve()
      .then(() => failures.blockedFor(key))
      .then(
        (waitMs) => {
          for (const waiter of waiters) waiter.resolve(waitMs);
        },
        (error: unknown) => {
          for (const waiter of waiters) waiter.reject(error);
        },
      );
  }

  /** Settles once no failure of `key` is in flight, however many arrive meanwhile. */
  async function recorded(key: string): Promise<void> {
    for (let inFlight = recording.get(key); inFlight?.size; inFlight = recording.get(key)) {
      await Promise.all(inFlight);
    }
  }

  function sendWhenRecorded(key: string) {
    if (!recording.has(key)) sendRead(key);
    else void recorded(key).then(() => sendRead(key));
  }

  return {
    record(key) {
      let inFlight = recording.get(key);
      if (!inFlight) {
        sendRead(key);
        inFlight = new Set();
        recording.set(key, inFlight);
      }
      // Deferred like the reads (one microtask each, in call order), so neither can throw here.
      const count = Promise.resolve().then(() => failures.record(key));
      const forget = () => {
        inFlight.delete(settled);
        if (inFlight.size === 0 && recording.get(key) === inFlight) recording.delete(key);
      };
      const settled: Promise<void> = count.then(forget, forget);
      inFlight.add(settled);
      return count;
    },
    blockedFor(key) {
      return new Promise((resolve, reject) => {
        const waiters = waiting.get(key);
        if (waiters) waiters.push({ resolve, reject });
        else waiting.set(key, [{ resolve, reject }]);
        if (scheduled) return;
        scheduled = true;
        setImmediate(() => {
          scheduled = false;
          for (const key of [...waiting.keys()]) sendWhenRecorded(key);
        });
      });
    },
  };
}

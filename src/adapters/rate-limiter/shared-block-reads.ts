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
 * The order the guard promises is kept, per address. Reads asked before a failure are sent
 * before it is recorded, so they never see it. Reads asked after it wait until no failure of
 * their address is in flight any more, so they always see it: ioredis sends the count's
 * script in its next pipeline, which may leave after a read sent in the meantime. While a
 * failure is in flight, a further one leaves the waiting reads waiting (they then see it
 * too), which errs toward refusing, and only during a burst of wrong credentials.
 */
export function sharedBlockReads(failures: CredentialFailures): CredentialFailures {
  const waiting = new Map<string, Waiter[]>();
  const recording = new Map<string, Set<Promise<void>>>();
  let scheduled = false;

  function sendRead(address: string) {
    const waiters = waiting.get(address);
    if (!waiters) return;
    waiting.delete(address);
    Promise.resolve()
      .then(() => failures.blockedFor(address))
      .then(
        (waitMs) => {
          for (const waiter of waiters) waiter.resolve(waitMs);
        },
        (error: unknown) => {
          for (const waiter of waiters) waiter.reject(error);
        },
      );
  }

  /** Settles once no failure of `address` is in flight, however many arrive meanwhile. */
  async function recorded(address: string): Promise<void> {
    for (let inFlight = recording.get(address); inFlight?.size; inFlight = recording.get(address)) {
      await Promise.all(inFlight);
    }
  }

  function sendWhenRecorded(address: string) {
    if (!recording.has(address)) sendRead(address);
    else void recorded(address).then(() => sendRead(address));
  }

  return {
    record(address) {
      let inFlight = recording.get(address);
      if (!inFlight) {
        sendRead(address);
        inFlight = new Set();
        recording.set(address, inFlight);
      }
      // Deferred like the reads (one microtask each, in call order), so neither can throw here.
      const count = Promise.resolve().then(() => failures.record(address));
      const forget = () => {
        inFlight.delete(settled);
        if (inFlight.size === 0 && recording.get(address) === inFlight) recording.delete(address);
      };
      const settled: Promise<void> = count.then(forget, forget);
      inFlight.add(settled);
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
          for (const address of [...waiting.keys()]) sendWhenRecorded(address);
        });
      });
    },
  };
}

import crypto from 'node:crypto';
import os from 'node:os';
import type { CallbackDeps } from './callback-handler.js';
import { type LongPolling, type LongPollingOptions, startLongPolling } from './long-polling.js';

/** The Bot API allows one `getUpdates` poller per bot: the replicas share this lease. */
export const POLLING_LEASE = 'chat-long-polling';

export interface LeasedPollingOptions extends LongPollingOptions {
  /** How often a replica without the lease tries to take it; at most 5 s by default. */
  retryMs?: number;
}

/**
 * CONTRACT, Several replicas: "Chat long polling runs on one replica at a time (a lease in
 * Redis, taken over within 30 s when its holder dies)". Every replica runs this; the one
 * holding the lease polls and renews it every third of its life, the others retry to take
 * it. A holder that cannot renew stops polling before its lease can pass to another.
 */
export function startLeasedPolling(
  deps: CallbackDeps,
  options: LeasedPollingOptions = {},
): LongPolling {
  const { leases, log } = deps.services;
  const holder = `${os.hostname()}:${process.pid}:${crypto.randomUUID()}`;
  const renewMs = Math.max(1, Math.floor(leases.ttlMs / 3));
  const retryMs = options.retryMs ?? Math.min(5_000, renewMs);
  let stopped = false;
  let polling: LongPolling | undefined;
  /** When the lease runs out unless renewed: measured from before the last renewal was sent. */
  let heldUntil = 0;
  let wake: () => void = () => undefined;
  let watchdog: NodeJS.Timeout | undefined;

  const stopPolling = async () => {
    clearTimeout(watchdog);
    const current = polling;
    polling = undefined;
    await current?.stop();
  };
  /** A renewal that never answers must not keep this replica polling past its lease. */
  const heldFrom = (sentAt: number) => {
    heldUntil = sentAt + leases.ttlMs;
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      log.warn({ holder }, 'chat long polling: lease not renewed in time, polling stops');
      void stopPolling();
    }, heldUntil - Date.now());
    watchdog.unref();
  };

  /** One attempt to take or renew the lease; returns how long to wait before the next. */
  async function step(): Promise<number> {
    const sentAt = Date.now();
    if (!polling) {
      if (!(await leases.acquire(POLLING_LEASE, holder))) return retryMs;
      if (stopped) return 0;
      polling = startLongPolling(deps, options);
      heldFrom(sentAt);
      log.info({ holder }, 'chat long polling: lease taken, polling');
      return renewMs;
    }
    if (await leases.renew(POLLING_LEASE, holder)) {
      if (polling) heldFrom(sentAt);
      return renewMs;
    }
    log.warn({ holder }, 'chat long polling: lease lost to another replica, polling stops');
    await stopPolling();
    return retryMs;
  }

  async function loop(): Promise<void> {
    while (!stopped) {
      let delayMs: number;
      try {
        delayMs = await step();
      } catch (error) {
        log.warn({ err: error }, 'chat long polling: lease unreachable');
        // Another replica may take the lease once it runs out: stop before the next renewal
        // could come too late.
        if (polling && Date.now() + renewMs >= heldUntil) await stopPolling();
        delayMs = Math.min(retryMs, renewMs);
      }
      if (stopped) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  const done = loop();
  return {
    active: () => polling?.active() ?? false,
    async stop() {
      stopped = true;
      wake();
      await done;
      await stopPolling();
      // Released at once, so another replica takes over at its next retry, not after the ttl.
      await leases.release(POLLING_LEASE, holder).catch((error: unknown) => {
        log.warn({ err: error }, 'chat long polling: lease not released; it runs out instead');
      });
    },
  };
}

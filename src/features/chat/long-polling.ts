import type { Db } from '../../ports/store.js';
import { type CallbackDeps, handleChatUpdate } from './callback-handler.js';

export const LAST_UPDATE_KEY = 'chat.last_update_id';

export async function readLastUpdateId(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', LAST_UPDATE_KEY)
    .executeTakeFirst();
  return row ? Number(row.value) : null;
}

async function saveLastUpdateId(db: Db, updateId: number, now: number): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: LAST_UPDATE_KEY, value: String(updateId), updated_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(updateId), updated_at: now }))
    .execute();
}

export interface LongPollingOptions {
  timeoutSeconds?: number;
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface LongPolling {
  /** Polling, and the last poll was answered: false while it backs off after a failure. */
  active(): boolean;
  stop(): Promise<void>;
}

/**
 * Long-polls `getUpdates` and hands every update to the callback handler. The last update
 * id is saved after each update, so a restart neither replays nor skips (at most the one
 * update in hand is seen again, and its nonce is already used).
 */
export function startLongPolling(
  deps: CallbackDeps,
  options: LongPollingOptions = {},
): LongPolling {
  const { chat, store, clock, log } = deps.services;
  const timeoutSeconds = options.timeoutSeconds ?? 25;
  const minBackoffMs = options.minBackoffMs ?? 1000;
  const maxBackoffMs = options.maxBackoffMs ?? 30_000;
  const abort = new AbortController();
  let running = true;
  let failing = false;
  let backoffMs = minBackoffMs;

  async function loop(): Promise<void> {
    while (!abort.signal.aborted) {
      try {
        const last = await readLastUpdateId(store.db);
        const updates = await chat.getUpdates(
          last === null ? 0 : last + 1,
          timeoutSeconds,
          abort.signal,
        );
        for (const update of updates) {
          if (abort.signal.aborted) return;
          const answer = await handleChatUpdate(deps, update);
          log.debug(
            { updateId: update.update_id, ok: answer.ok, message: answer.message },
            'chat update',
          );
          await saveLastUpdateId(store.db, update.update_id, clock.now());
        }
        backoffMs = minBackoffMs;
        failing = false;
      } catch (error) {
        if (abort.signal.aborted) return;
        failing = true;
        log.warn({ err: error, retryInMs: backoffMs }, 'chat long polling failed; backing off');
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, backoffMs);
          abort.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
        backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      }
    }
  }

  const done = loop().finally(() => {
    running = false;
  });
  return {
    active: () => running && !failing,
    async stop() {
      abort.abort();
      await done;
    },
  };
}

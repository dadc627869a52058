/**
 * The Bot API's flood control, as a stand-in needs it (the test helper's and the bench's):
 * the real API lets about 20 messages a minute into one group and answers the rest HTTP 429
 * with `parameters.retry_after` in whole seconds; a call made before that wait is over is
 * refused again. Only calls that put a message into the chat or change one are limited.
 */
export const FLOOD_LIMITED_METHODS: ReadonlySet<string> = new Set([
  'sendMessage',
  'editMessageText',
  'editMessageReplyMarkup',
]);

export interface FloodLimit {
  /** Messages let through within `perSeconds`; further ones get a 429. */
  messages: number;
  perSeconds: number;
}

export interface FloodVerdict {
  /** Set: answer 429 with this `retry_after` (seconds). */
  retryAfter?: number;
  /** The call came while a `retry_after` this stand-in announced was still running. */
  duringWait: boolean;
}

/** The 429 body of the Bot API. */
export function tooManyRequests(retryAfter: number) {
  return {
    ok: false,
    error_code: 429,
    description: `Too Many Requests: retry after ${retryAfter}`,
    parameters: { retry_after: retryAfter },
  };
}

export function createFloodControl(initial?: FloodLimit) {
  let limit = initial;
  /** When each message let through within the current window arrived. */
  const letThrough: number[] = [];
  /** `retry_after` values the next limited calls get, whatever the limit says. */
  const forced: number[] = [];
  let quietUntil = 0;
  let refused = 0;

  return {
    setLimit(next: FloodLimit | undefined) {
      limit = next;
    },
    /** The next limited call is answered 429 with `retry_after: seconds`. Stacks. */
    refuseNext(seconds: number) {
      forced.push(seconds);
    },
    /** How many limited calls were answered 429. */
    refused: () => refused,
    judge(method: string, now = Date.now()): FloodVerdict {
      if (!FLOOD_LIMITED_METHODS.has(method)) return { duringWait: false };
      const duringWait = now < quietUntil;
      let retryAfter: number | undefined = forced.shift();
      if (retryAfter === undefined && duringWait) {
        retryAfter = Math.max(1, Math.ceil((quietUntil - now) / 1000));
      }
      if (retryAfter === undefined && limit) {
        const windowMs = limit.perSeconds * 1000;
        while (letThrough.length > 0 && (letThrough[0] ?? 0) <= now - windowMs) letThrough.shift();
        if (letThrough.length >= limit.messages) {
          const oldest = letThrough[0] ?? now;
          retryAfter = Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
        }
      }
      if (retryAfter !== undefined) {
        refused += 1;
        quietUntil = Math.max(quietUntil, now + retryAfter * 1000);
        return { retryAfter, duringWait };
      }
      letThrough.push(now);
      return { duringWait };
    },
  };
}

export type FloodControl = ReturnType<typeof createFloodControl>;

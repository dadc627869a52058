import type { PostgresPool, PostgresPoolClient } from 'kysely';
import pg from 'pg';
import { withDeadline } from '../../support/deadline.js';
import { errorCode } from '../sql/sql-support.js';

/**
 * CONTRACT, Under races, crashes and abuse: a PostgreSQL that accepts connections but never
 * answers (stopped, a stuck host) fails a request with 503 within 2 s, and serves again
 * within 5 s of answering. A query slower than this is the moment to ask whether the server
 * answers at all; a timeout on the query itself would also cut slow but healthy ones (a lock
 * wait, a migration), and pg's own `query_timeout` leaves the connection mid-query.
 */
const SUSPECT_AFTER_MS = 500;
/** How long the server has to answer `select 1` on a connection of the guard's own. */
const PROBE_TIMEOUT_MS = 800;
/** While the server is found hung, it is asked again this often. */
const REPROBE_EVERY_MS = 500;
/** How often the waiting queries are looked at for one older than SUSPECT_AFTER_MS. */
const LOOK_EVERY_MS = 100;

/** A code the server sent (socket errors, EPIPE included, start with a letter). */
const SQLSTATE = /^[0-9][0-9A-Z]{4}$/;

/** SQLSTATE 08006 connection_failure: the store reads it as unavailable (a 503). */
export class ServerHungError extends Error {
  readonly code = '08006';
  constructor() {
    super('Connection terminated: PostgreSQL did not answer in time');
    this.name = 'ServerHungError';
  }
}

/** No code: not an answer of the server's. */
const UNANSWERED = 'PostgreSQL did not answer the probe in time';
const unanswered = () => new Error(UNANSWERED);
const isUnanswered = (error: unknown) => error instanceof Error && error.message === UNANSWERED;

/** How the probe's connection shows in `pg_stat_activity`. */
export const PROBE_APPLICATION_NAME = 'alert-intake hang probe';

export interface HangGuard {
  /** The pool Kysely is given: checkouts and queries fail at once while the server hangs. */
  pool: PostgresPool;
  close(): Promise<void>;
}

/**
 * Watches the queries and checkouts of `pool`. One still waiting after SUSPECT_AFTER_MS has
 * the server probed; when the probe gets no answer either, every waiting query and checkout
 * fails with ServerHungError, their connections are dropped from the pool (a connection cut
 * mid-transaction is rolled back by the server), and new ones fail at once until a probe is
 * answered again.
 */
export function guardAgainstHang(pool: pg.Pool, connectionString: string): HangGuard {
  /** What fails each waiting query or checkout, with when it began, oldest first. */
  const waiting = new Map<(error: Error) => void, number>();
  let looking: NodeJS.Timeout | undefined;
  const wrappers = new WeakMap<pg.PoolClient, { client: PostgresPoolClient; broken: boolean }>();
  let hung = false;
  let reprobing: NodeJS.Timeout | undefined;
  let probing: Promise<void> | undefined;
  let prober: pg.Client | undefined;
  /** When a probe was last answered. */
  let answeredAt = 0;
  let closed = false;

  async function answers(): Promise<boolean> {
    const reused = prober !== undefined;
    try {
      if (!prober) {
        const fresh = new pg.Client({
          connectionString,
          connectionTimeoutMillis: PROBE_TIMEOUT_MS,
          application_name: PROBE_APPLICATION_NAME,
        });
        fresh.on('error', () => undefined);
        // The server may close an idle probe (a restart, pg_terminate_backend, an idle
        // timeout): the next probe opens a new connection rather than fail on a dead one.
        fresh.once('end', () => {
          if (prober === fresh) prober = undefined;
        });
        prober = fresh;
        await withDeadline(fresh.connect(), PROBE_TIMEOUT_MS, unanswered);
      }
      await withDeadline(prober.query('select 1'), PROBE_TIMEOUT_MS, unanswered);
      return true;
    } catch (error) {
      // A connection that went unanswered stays behind the unanswered query: a new one next.
      const dropped = prober;
      prober = undefined;
      dropped?.end().catch(() => undefined);
      // A refusal with a SQLSTATE (too many connections, starting up) is an answer: the
      // server is not hung, and the waiting queries get their own answers or errors.
      if (SQLSTATE.test(errorCode(error) ?? '')) return true;
      // A kept connection that failed at once (closed before its 'end' was seen) says
      // nothing of the server: ask again on a new one. Only silence counts as a hang.
      if (reused && !isUnanswered(error)) return answers();
      return false;
    }
  }

  function probe(): Promise<void> {
    probing ??= answers().then((ok) => {
      probing = undefined;
      if (closed) return;
      if (ok) {
        answeredAt = Date.now();
        hung = false;
        clearInterval(reprobing);
        reprobing = undefined;
        return;
      }
      hung = true;
      for (const fail of [...waiting.keys()]) fail(new ServerHungError());
      reprobing ??= setInterval(() => void probe(), REPROBE_EVERY_MS);
      reprobing.unref();
    });
    return probing;
  }

  /**
   * One timer for every waiting query, rather than one each. A slow query on a server that
   * answers (a lock wait, a report) has the server asked at most every REPROBE_EVERY_MS.
   */
  function lookForSuspects() {
    const oldest = waiting.values().next().value;
    if (oldest === undefined || Date.now() - oldest < SUSPECT_AFTER_MS) return;
    if (!hung && Date.now() - answeredAt < REPROBE_EVERY_MS) return;
    void probe();
  }

  /** `start()`, failed early when the server is found hung while it waits; not begun then. */
  function watched<T>(start: () => Promise<T>): Promise<T> {
    if (hung) return Promise.reject(new ServerHungError());
    const work = start();
    return new Promise<T>((resolve, reject) => {
      const settle = () => {
        waiting.delete(fail);
        if (waiting.size === 0) {
          clearInterval(looking);
          looking = undefined;
        }
      };
      const fail = (error: Error) => {
        settle();
        reject(error);
      };
      waiting.set(fail, Date.now());
      looking ??= setInterval(lookForSuspects, LOOK_EVERY_MS).unref();
      work.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
  }

  function wrap(inner: pg.PoolClient): PostgresPoolClient {
    let wrapper = wrappers.get(inner);
    if (!wrapper) {
      const state = { broken: false, client: undefined as unknown as PostgresPoolClient };
      state.client = {
        query: ((text: unknown, parameters?: ReadonlyArray<unknown>) => {
          // A cursor (Kysely's streams) is read by its caller; only plain queries are watched.
          if (typeof text !== 'string') return inner.query(text as pg.Submittable);
          if (state.broken) return Promise.reject(new ServerHungError());
          return watched(() => inner.query(text, parameters as unknown[])).catch(
            (error: unknown) => {
              if (error instanceof ServerHungError) state.broken = true;
              throw error;
            },
          );
        }) as PostgresPoolClient['query'],
        release() {
          // An error makes the pool drop the connection rather than lend it again.
          inner.release(state.broken ? new ServerHungError() : undefined);
        },
      };
      wrapper = state;
      wrappers.set(inner, wrapper);
    }
    wrapper.broken = false;
    return wrapper.client;
  }

  return {
    pool: {
      async connect() {
        let checkout: Promise<pg.PoolClient> | undefined;
        try {
          return wrap(await watched(() => (checkout = pool.connect())));
        } catch (error) {
          // A connection the pool hands over after the checkout gave up goes back to it.
          checkout?.then(
            (late) => late.release(),
            () => undefined,
          );
          throw error;
        }
      },
      end: () => pool.end(),
    },
    async close() {
      closed = true;
      clearInterval(reprobing);
      clearInterval(looking);
      await prober?.end().catch(() => undefined);
    },
  };
}

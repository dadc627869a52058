import crypto from 'node:crypto';
import pg from 'pg';
import type { Wakeups } from '../../ports/store.js';

type OnWake = (payload: string | undefined) => void;

const RECONNECT_FIRST_MS = 500;
const RECONNECT_MAX_MS = 10_000;

/**
 * Topics become channel names of their own per schema, so tenants and test schemas sharing a
 * database never wake each other; hashed, since a channel name is an identifier (≤ 63 bytes).
 */
function channelOf(schema: string | undefined, topic: string): string {
  const digest = crypto
    .createHash('sha256')
    .update(`${schema ?? ''}\0${topic}`)
    .digest('hex');
  return `wake_${digest.slice(0, 40)}`;
}

/**
 * PostgreSQL's LISTEN/NOTIFY: a process that writes work tells every process waiting for it,
 * instead of each polling the table several times a second. One dedicated connection listens
 * for all topics. A NOTIFY is delivered at its transaction's commit, so a woken process finds
 * the row. While that connection is down nothing is heard: on every reconnect each listener is
 * woken once without a payload, to look for whatever it missed.
 */
export function createPgWakeups(
  options: { url: string; schema?: string },
  onConnectionError: (error: Error) => void,
): Wakeups & { close(): Promise<void> } {
  const listeners = new Map<string, Set<OnWake>>();
  let client: pg.Client | undefined;
  /** The channels the current connection LISTENs to. */
  let listened = new Set<string>();
  let connecting: Promise<void> | undefined;
  let retryMs = RECONNECT_FIRST_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;

  const wakeAll = () => {
    for (const set of listeners.values()) for (const onWake of [...set]) onWake(undefined);
  };

  function dropped(error?: Error) {
    if (error) onConnectionError(error);
    const gone = client;
    client = undefined;
    gone?.end().catch(() => undefined);
    if (closed || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect().then(wakeAll, () => undefined);
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, RECONNECT_MAX_MS);
  }

  function connect(): Promise<void> {
    connecting ??= (async () => {
      const fresh = new pg.Client({
        connectionString: options.url,
        connectionTimeoutMillis: 5_000,
        keepAlive: true,
      });
      fresh.on('error', (error) => {
        if (client === fresh) dropped(error);
      });
      fresh.on('end', () => {
        if (client === fresh) dropped();
      });
      fresh.on('notification', (message) => {
        for (const onWake of [...(listeners.get(message.channel) ?? [])]) onWake(message.payload);
      });
      const channels = new Set<string>();
      try {
        await fresh.connect();
        for (const channel of listeners.keys()) {
          channels.add(channel);
          await fresh.query(`LISTEN "${channel}"`);
        }
      } catch (error) {
        fresh.end().catch(() => undefined);
        dropped(error as Error);
        throw error;
      }
      if (closed) {
        await fresh.end().catch(() => undefined);
        return;
      }
      client = fresh;
      listened = channels;
      retryMs = RECONNECT_FIRST_MS;
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  return {
    notify(topic, payload) {
      if (closed) return;
      // On the listening connection (made now if this process never listened): no pooled
      // connection is taken from the requests for it.
      const send = (on: pg.Client) =>
        on.query('select pg_notify($1, $2)', [channelOf(options.schema, topic), payload]);
      // Best effort: a connection that ends meanwhile (closing, a restart) loses this one.
      const sent = client
        ? send(client)
        : connect().then(() => (client ? send(client) : undefined));
      sent.catch(() => undefined);
    },

    async listen(topic, onWake) {
      const channel = channelOf(options.schema, topic);
      let set = listeners.get(channel);
      if (!set) {
        set = new Set();
        listeners.set(channel, set);
      }
      set.add(onWake);
      // A connection made now LISTENs to every channel known, this one too; one made while
      // this channel was being added may not have: LISTEN on it here.
      if (!client) await connect().catch(() => undefined);
      const current = client;
      if (current && !listened.has(channel)) {
        listened.add(channel);
        await current.query(`LISTEN "${channel}"`).catch((error: Error) => dropped(error));
      }
      return () => {
        set.delete(onWake);
      };
    },

    async close() {
      closed = true;
      clearTimeout(retryTimer);
      await connecting?.catch(() => undefined);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}

import type { ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import { clientAddress } from '../../http/client-address.js';
import { endStreamsOnClose, STREAM_HEADERS } from '../../http/event-stream.js';
import { hijackKeepingHeaders } from '../../http/security-headers.js';
import { compareFeedIds, FEED_KEPT_EVENTS, type FeedEntry } from '../../ports/event-feed.js';
import type { Services } from '../../services.js';
import { withDeadline } from '../../support/deadline.js';
import { createStreamSlots } from './stream-slots.js';

export interface EventsRoutesOptions {
  services: Services;
  /** Tests shorten it to see heartbeats. */
  heartbeatMs?: number;
}

const HEARTBEAT_MS = 15_000;
/** How long a stream waits for its live subscription before it is refused. */
const SUBSCRIBE_WAIT_MS = 1000;
/** CONTRACT, Hostile clients: streams one client address may hold open. */
const STREAMS_PER_CLIENT = 20;
/** Seconds a refused client is asked to wait: about how long a stream takes to be replaced. */
const RETRY_AFTER_SECONDS = 10;
/** How many buffered events one resume replays at most: all the buffer keeps. */
const REPLAY_LIMIT = FEED_KEPT_EVENTS;
/**
 * CONTRACT, Under races, crashes and abuse: a stream is ended once more than this many of
 * its events wait in the service for its client. Counted in events, not bytes: a burst (a
 * 1,000-alert body is some 2,000 events) is written in one turn of the event loop, faster
 * than any client reads, and must reach a client that keeps reading.
 */
const BEHIND_LIMIT_EVENTS = FEED_KEPT_EVENTS;
const FEED_ID = /^\d{1,15}-\d{1,9}$/;

const frame = (entry: FeedEntry) => `id: ${entry.id}\ndata: ${JSON.stringify(entry.event)}\n\n`;

/** A Last-Event-ID this feed did not issue is ignored, as if none had been sent. */
function lastEventIdOf(header: unknown, query: unknown): string | undefined {
  const value = (Array.isArray(header) ? header[0] : header) ?? query;
  return typeof value === 'string' && FEED_ID.test(value.trim()) ? value.trim() : undefined;
}

/**
 * Writes to `raw`, counting the events it still holds: Node's buffer of a response only
 * knows bytes, so each event's end offset is kept until the buffer has let go of it.
 */
function unflushedEvents(raw: ServerResponse) {
  let written = 0;
  const ends: number[] = [];
  let first = 0;
  return {
    /** Writes `text` (an event unless told otherwise); answers how many events wait. */
    write(text: string, isEvent = true): number {
      raw.write(text);
      written += Buffer.byteLength(text);
      if (isEvent) ends.push(written);
      const flushed = written - raw.writableLength;
      while (first < ends.length && (ends[first] as number) <= flushed) first += 1;
      // Compacted now and then rather than shifted per event.
      if (first > 1024 && first * 2 > ends.length) {
        ends.splice(0, first);
        first = 0;
      }
      return ends.length - first;
    },
  };
}

/**
 * One client's feed: it subscribes before reading the buffer, so nothing falls between the
 * two; live events heard during the replay wait, and each event is sent once, in id order.
 */
async function openFeed(
  services: Services,
  raw: ServerResponse,
  lastEventId: string | undefined,
  heartbeatMs: number,
  onEnd: () => void,
): Promise<() => void> {
  let last = lastEventId;
  let replaying = true;
  const waiting: FeedEntry[] = [];
  // A client that does not read would have every later event kept for it in memory: once
  // more than BEHIND_LIMIT_EVENTS wait in the response's buffer, its stream ends, and it
  // resumes from Last-Event-ID when it reads again. The kernel's socket buffers hold some
  // more, so a stream ended is always more than the limit behind.
  const behind = unflushedEvents(raw);
  let ended = false;
  let endStream: (() => void) | undefined;
  const send = (entry: FeedEntry) => {
    if (ended) return;
    if (last !== undefined && compareFeedIds(entry.id, last) <= 0) return;
    last = entry.id;
    if (behind.write(frame(entry)) > BEHIND_LIMIT_EVENTS) endStream?.();
  };
  const subscribing = services.feed.subscribe((entry) => {
    if (replaying) waiting.push(entry);
    else send(entry);
  });
  // CONTRACT, Under races, crashes and abuse: a Redis that hangs fails the stream within
  // 2 s; a subscription confirmed after that is ended at once.
  const unsubscribe = await withDeadline(
    subscribing,
    SUBSCRIBE_WAIT_MS,
    () => new Error('event feed: no subscription in time'),
  ).catch((error: unknown) => {
    subscribing
      .then(
        (late) => late(),
        () => undefined,
      )
      .catch(() => undefined);
    throw error;
  });
  raw.writeHead(200, STREAM_HEADERS);
  behind.write(': feed open\n\n', false);
  // CONTRACT, Hostile clients: without Last-Event-ID a stream starts with the events after
  // it opened, so reconnecting in a loop cannot make the service send its buffer each time.
  if (lastEventId !== undefined) {
    const missed = await services.feed.after(lastEventId, REPLAY_LIMIT).catch(async (error) => {
      await unsubscribe().catch(() => undefined);
      throw error;
    });
    for (const entry of missed) send(entry);
  }
  replaying = false;
  for (const entry of waiting.splice(0)) send(entry);
  const heartbeat = setInterval(() => behind.write(': heartbeat\n\n', false), heartbeatMs);
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    void unsubscribe().catch(() => undefined);
    raw.end();
    onEnd();
  };
  // Cut rather than ended: what waits for the client would otherwise stay in memory until it
  // reads it all, and it resumes from the last event it read anyway.
  endStream = () => {
    end();
    raw.destroy();
  };
  raw.on('close', end);
  // A client that left during the replay is gone already: its 'close' will not come again.
  if (raw.destroyed) end();
  return end;
}

/** CONTRACT, Operator console: `GET /api/v1/events`, the service's own events, live. */
export async function eventsRoutes(untyped: FastifyInstance, options: EventsRoutesOptions) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = options;
  const streams = endStreamsOnClose(app);
  const slots = createStreamSlots(services.config.eventsMaxClients, STREAMS_PER_CLIENT);
  app.addHook('onRequest', requireReadApiAccess(services));

  // CONTRACT, Hostile clients: HEAD answers at once; it never opens a stream.
  app.head(
    '/events',
    {
      schema: {
        summary: 'Whether the live feed would answer, without opening a stream',
        tags: ['read API'],
        response: {
          200: {
            description: 'the stream headers, no body',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => {
      return reply.headers(STREAM_HEADERS).send('');
    },
  );

  app.get(
    '/events',
    {
      exposeHeadRoute: false,
      schema: {
        summary: 'Server-sent events of incidents, approvals, signals and analyses, live',
        description:
          'Each event is `data: {"type", "at", …ids}` with an `id:`; send `Last-Event-ID` (or `?last_event_id=`) to resume from the buffer of the latest 10,000 events. A stream more than 10,000 events behind its client is ended.',
        tags: ['read API'],
        querystring: Type.Object({ last_event_id: Type.Optional(Type.String()) }),
        response: {
          200: {
            description: 'text/event-stream of feed events',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          503: Type.Object(
            { detail: Type.String() },
            { description: 'too many streams open (in all, or from this address)' },
          ),
        },
      },
    },
    async (request, reply) => {
      const lastEventId = lastEventIdOf(
        request.headers['last-event-id'],
        request.query.last_event_id,
      );
      const release = slots.take(clientAddress(request));
      if (!release) {
        // Answered here, not thrown: a refusal by design is no error for the log.
        return reply
          .code(503)
          .header('retry-after', String(RETRY_AFTER_SECONDS))
          .send({ detail: errors.feedFull().detail });
      }
      hijackKeepingHeaders(reply);
      try {
        const end = await openFeed(
          services,
          reply.raw,
          lastEventId,
          options.heartbeatMs ?? HEARTBEAT_MS,
          release,
        );
        streams.opened(reply.raw, end);
      } catch (error) {
        release();
        services.log.warn({ err: error }, 'event feed: stream not opened');
        if (!reply.raw.headersSent) {
          const { detail, retryAfterS } = errors.feedUnavailable();
          reply.raw.writeHead(503, {
            'content-type': 'application/json',
            'retry-after': String(retryAfterS),
          });
          reply.raw.end(JSON.stringify({ detail }));
        } else reply.raw.end();
      }
    },
  );
}

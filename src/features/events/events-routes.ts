import type { ServerResponse } from 'node:http';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import { clientAddress } from '../../http/client-address.js';
import type { GuardContext } from '../../http/credential-guard.js';
import { ErrorBody } from '../../http/error-body.js';
import { endStreamsOnClose, STREAM_HEADERS } from '../../http/event-stream.js';
import { hijackKeepingHeaders } from '../../http/security-headers.js';
import { compareFeedIds, type FeedEntry } from '../../ports/event-feed.js';
import type { Services } from '../../services.js';
import { createFeedRing, type FeedRing } from './feed-ring.js';
import { createStreamSlots } from './stream-slots.js';

export interface EventsRoutesOptions {
  services: GuardContext & Pick<Services, 'feed'>;
  /** Tests shorten it to see heartbeats. */
  heartbeatMs?: number;
}

const HEARTBEAT_MS = 15_000;
/** How long a stream waits for the feed (its subscription, then its buffer) before it is refused. */
const SUBSCRIBE_WAIT_MS = 1000;
/** CONTRACT, Hostile clients: streams one client address may hold open. */
const STREAMS_PER_CLIENT = 20;
/** Seconds a refused client is asked to wait: about how long a stream takes to be replaced. */
const RETRY_AFTER_SECONDS = 10;
/**
 * Bytes of frames one write hands to a stream's response at most. Frames are written while
 * the response takes them and wait in the shared ring otherwise, so a client that reads
 * nothing holds some 32 KiB in its response (this plus the socket's high-water mark) however
 * far behind it is.
 */
const CHUNK_CHARS = 16 * 1024;
const FEED_ID = /^\d{1,15}-\d{1,9}$/;

const frame = (entry: FeedEntry) => `id: ${entry.id}\ndata: ${JSON.stringify(entry.event)}\n\n`;

/** The ring streams read, and each event's frame, made once for all of them. */
interface FeedSource {
  ring: FeedRing;
  frameOf(entry: FeedEntry): string;
}

/** A Last-Event-ID this feed did not issue is ignored, as if none had been sent. */
function lastEventIdOf(header: unknown, query: unknown): string | undefined {
  const value = (Array.isArray(header) ? header[0] : header) ?? query;
  return typeof value === 'string' && FEED_ID.test(value.trim()) ? value.trim() : undefined;
}

/**
 * One client's feed: its place in the process's ring of the newest events, from which it
 * writes as fast as its client reads, each event once, in id order. CONTRACT, Under races,
 * crashes and abuse: it is ended only once its place has left the ring, more than 10,000
 * events behind (what Node's and the kernel's buffers hold puts it further behind still).
 */
async function openFeed(
  { ring, frameOf }: FeedSource,
  raw: ServerResponse,
  lastEventId: string | undefined,
  heartbeatMs: number,
  onEnd: () => void,
): Promise<() => void> {
  await ring.ready();
  raw.writeHead(200, STREAM_HEADERS);
  raw.write(': feed open\n\n');
  // CONTRACT, Hostile clients: without Last-Event-ID a stream starts with the events after
  // it opened, so reconnecting in a loop cannot make the service send its buffer each time.
  let next = lastEventId === undefined ? ring.end() : ring.positionAfter(lastEventId);
  // An id this replica has not heard yet (the client read it from another one): the events
  // up to it arrive after the stream opened, and the client has them already.
  let seen = lastEventId;
  let ended = false;
  /** Set while the response holds as much as it should; its 'drain' clears it. */
  let full = false;
  let endStream: () => void = () => undefined;
  const pump = () => {
    if (ended) return;
    // The client missed events the ring no longer holds: it resumes from Last-Event-ID.
    if (next < ring.start()) {
      endStream();
      return;
    }
    while (!full && next < ring.end()) {
      let chunk = '';
      while (next < ring.end() && chunk.length < CHUNK_CHARS) {
        const entry = ring.at(next);
        next += 1;
        if (seen !== undefined && compareFeedIds(entry.id, seen) <= 0) continue;
        seen = undefined;
        chunk += frameOf(entry);
      }
      if (chunk === '') continue;
      full = !raw.write(chunk);
    }
  };
  const onDrain = () => {
    full = false;
    pump();
  };
  raw.on('drain', onDrain);
  const stopListening = ring.listen(pump);
  const heartbeat = setInterval(() => {
    if (!full) full = !raw.write(': heartbeat\n\n');
  }, heartbeatMs);
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    stopListening();
    raw.off('drain', onDrain);
    raw.end();
    onEnd();
  };
  // Cut rather than ended: what waits for the client in its buffers is dropped at once, and
  // it resumes from the last event it read anyway.
  endStream = () => {
    end();
    raw.destroy();
  };
  raw.on('close', end);
  pump();
  // A client that left while the stream opened is gone already: its 'close' will not come.
  if (raw.destroyed) end();
  return end;
}

/** CONTRACT, Operator console: `GET /api/v1/events`, the service's own events, live. */
export async function eventsRoutes(untyped: FastifyInstance, options: EventsRoutesOptions) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = options;
  const streams = endStreamsOnClose(app);
  // One per process (one app per process): filled once from the feed, read by every stream.
  const ring = createFeedRing(services.feed, SUBSCRIBE_WAIT_MS);
  app.addHook('onClose', () => ring.close());
  const frames = new WeakMap<FeedEntry, string>();
  const source: FeedSource = {
    ring,
    frameOf(entry) {
      let text = frames.get(entry);
      if (text === undefined) {
        text = frame(entry);
        frames.set(entry, text);
      }
      return text;
    },
  };
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
          503: Type.Object(ErrorBody.properties, {
            description: 'too many streams open (in all, or from this address)',
          }),
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
        const refusal = errors.feedFull();
        return reply
          .code(503)
          .header('retry-after', String(RETRY_AFTER_SECONDS))
          .send(refusal.body);
      }
      hijackKeepingHeaders(reply);
      try {
        const end = await openFeed(
          source,
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
          const failure = errors.feedUnavailable();
          reply.raw.writeHead(failure.statusCode, {
            'content-type': 'application/json',
            'retry-after': String(failure.retryAfterS),
          });
          reply.raw.end(JSON.stringify(failure.body));
        } else reply.raw.end();
      }
    },
  );
}

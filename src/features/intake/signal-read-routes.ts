import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import { PageOf, PageQuery } from '../../http/pagination.js';
import { NullableString } from '../../http/schema-types.js';
import type { Services } from '../../services.js';
import { decodeCursor, pageOf } from '../../support/newest-first.js';
import { signalOutcomesOf } from './signal-outcome-records.js';
import { SIGNALS_STREAM, signalFromStreamFields } from './signal-schema.js';

const FreeFormObject = Type.Record(Type.String(), Type.Unknown());

const SignalItem = Type.Object({
  id: Type.String({ description: 'stream entry id' }),
  source: Type.String(),
  alert_name: Type.String(),
  severity: Type.String(),
  namespace: Type.String(),
  target: Type.String(),
  message: Type.String(),
  labels: FreeFormObject,
  annotations: FreeFormObject,
  received_at: Type.String(),
  handling: Type.Object({ outcome: Type.String(), incident_id: NullableString }),
});

const SignalPage = Type.Object({
  stream: Type.String(),
  length: Type.Integer(),
  ...PageOf(SignalItem).properties,
});

/** A signal cursor holds a stream id (`<ms>-<seq>`); anything else is not one we issued. */
function decodeStreamCursor(cursor: string | undefined): string | undefined {
  const position = decodeCursor(cursor);
  if (position !== undefined && !/^\d{1,15}-\d{1,15}$/.test(position)) throw errors.badCursor();
  return position;
}

/** Read API for the signals stream: its latest entries and how each was handled. */
export async function signalReadRoutes(
  app: FastifyInstance,
  {
    services,
  }: {
    services: Pick<
      Services,
      'config' | 'failures' | 'log' | 'operatorKeyFailures' | 'store' | 'stream'
    >;
  },
) {
  const { store, stream } = services;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', requireReadApiAccess(services));

  typed.get(
    '/signals',
    {
      schema: {
        summary: 'Latest entries of the platform:signals stream with how each was handled',
        tags: ['read'],
        querystring: Type.Object(PageQuery),
        response: { 200: SignalPage },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const entries = await stream.range(SIGNALS_STREAM, {
        newestFirst: true,
        from: decodeStreamCursor(request.query.cursor),
        limit: limit + 1,
      });
      const page = entries.slice(0, limit);
      const ids = page.map((entry) => entry.id);
      const outcomes = ids.length ? await signalOutcomesOf(store.db, ids) : [];
      const byId = new Map(outcomes.map((row) => [row.entry_id, row]));
      return {
        stream: SIGNALS_STREAM,
        length: await stream.length(SIGNALS_STREAM),
        ...pageOf(
          entries,
          limit,
          (entry) => entry.id,
          (entry) => {
            const outcome = byId.get(entry.id);
            return {
              id: entry.id,
              ...signalFromStreamFields(entry.fields),
              handling: outcome
                ? { outcome: outcome.outcome, incident_id: outcome.incident_id }
                : { outcome: 'queued', incident_id: null },
            };
          },
        ),
      };
    },
  );
}

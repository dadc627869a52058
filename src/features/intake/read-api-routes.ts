import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireConsoleToken } from '../../http/console-auth.js';
import { decodeCursor, encodeCursor, listNewestFirst, PageQuery } from '../../http/pagination.js';
import type { Services } from '../../services.js';
import { incidentView } from './incident-view.js';
import { SIGNALS_STREAM, signalFromStreamFields } from './signal-schema.js';

const IncidentQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  alert_type: Type.Optional(Type.String()),
  fingerprint: Type.Optional(Type.String()),
});

interface IncidentQuery {
  limit?: number;
  cursor?: string;
  status?: string;
  namespace?: string;
  alert_type?: string;
  fingerprint?: string;
}

/** A signal cursor holds a stream id (`<ms>-<seq>`); anything else is not one we issued. */
function decodeStreamCursor(cursor: string | undefined): string | undefined {
  const position = decodeCursor(cursor);
  if (position !== undefined && !/^\d{1,15}-\d{1,15}$/.test(position)) throw errors.badCursor();
  return position;
}

/** Read API for what intake holds: incidents (with why they merged) and signals. */
export async function readApiRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { store, stream } = services;
  app.addHook('onRequest', requireConsoleToken(services.config.consoleToken));

  app.get(
    '/incidents',
    {
      schema: {
        summary: 'List incidents, newest first',
        tags: ['read'],
        querystring: IncidentQuery,
      },
    },
    async (request) => {
      const query = request.query as IncidentQuery;
      const { status, namespace, alert_type, fingerprint } = query;
      const page = await listNewestFirst(
        store.db,
        'incidents',
        { status, namespace, alert_type, fingerprint },
        query,
      );
      return { items: page.items.map(incidentView), next_cursor: page.next_cursor };
    },
  );

  app.get(
    '/incidents/:id',
    {
      schema: {
        summary: 'One incident with its grouping explanation and latest alerts',
        tags: ['read'],
        params: Type.Object({ id: Type.String() }),
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const row = await store.db
        .selectFrom('incidents')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) throw errors.notFound('Incident', id);
      const alerts = await store.db
        .selectFrom('alerts')
        .select(['alert_id', 'origin', 'outcome', 'received_at'])
        .where('incident_id', '=', id)
        .orderBy('seq', 'desc')
        .limit(20)
        .execute();
      return {
        ...incidentView(row),
        recent_alerts: alerts.map((alert) => ({
          ...alert,
          received_at: new Date(alert.received_at).toISOString(),
        })),
      };
    },
  );

  app.get(
    '/signals',
    {
      schema: {
        summary: 'Latest entries of the platform:signals stream with how each was handled',
        tags: ['read'],
        querystring: Type.Object(PageQuery),
      },
    },
    async (request) => {
      const query = request.query as { limit?: number; cursor?: string };
      const limit = query.limit ?? 50;
      const entries = await stream.range(SIGNALS_STREAM, {
        newestFirst: true,
        from: decodeStreamCursor(query.cursor),
        limit: limit + 1,
      });
      const page = entries.slice(0, limit);
      const ids = page.map((entry) => entry.id);
      const outcomes = ids.length
        ? await store.db
            .selectFrom('signal_outcomes')
            .selectAll()
            .where('entry_id', 'in', ids)
            .execute()
        : [];
      const byId = new Map(outcomes.map((row) => [row.entry_id, row]));
      const last = page[page.length - 1];
      return {
        stream: SIGNALS_STREAM,
        length: await stream.length(SIGNALS_STREAM),
        items: page.map((entry) => {
          const outcome = byId.get(entry.id);
          return {
            id: entry.id,
            ...signalFromStreamFields(entry.fields),
            handling: outcome
              ? { outcome: outcome.outcome, incident_id: outcome.incident_id }
              : { outcome: 'queued', incident_id: null },
          };
        }),
        next_cursor: entries.length > limit && last ? encodeCursor(last.id) : null,
      };
    },
  );
}

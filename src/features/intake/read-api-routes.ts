import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { errors, QUERY_PROBLEMS } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import { ErrorBody } from '../../http/error-body.js';
import { batchLimit, PageOf, PageQuery } from '../../http/pagination.js';
import { boundedText, choices, commaList, dateTime } from '../../http/query-values.js';
import { NullableString } from '../../http/schema-types.js';
import type { Services } from '../../services.js';
import { decodeCursor, pageOf } from '../../support/newest-first.js';
import {
  IncidentWithSilences,
  incidentWithSilences,
  type SilenceMatching,
} from '../escalation/incident-with-silences.js';
import { countUnresolvedBySeverity } from '../incidents/incident-counts.js';
import { IncidentSummary } from '../incidents/incident-detail.js';
import { INCIDENT_ORDERS, type IncidentFilters } from '../incidents/incident-query.js';
import { type IncidentStatus, listIncidents } from '../incidents/incident-records.js';
import { signalOutcomesOf } from './signal-outcome-records.js';
import { SIGNALS_STREAM, signalFromStreamFields } from './signal-schema.js';

/** CONTRACT, Operator console: what `q` may hold, and how many ids one batch read names. */
const SEARCH_MAX_LENGTH = 200;
const IDS_MAX = 100;
const INCIDENT_STATUSES: readonly IncidentStatus[] = ['open', 'acknowledged', 'resolved'];
const SEVERITIES = ['P0', 'P1', 'P2', 'P3'] as const;

// Every filter is text judged by the handler (http/query-values.ts): a bad value is a 400
// naming it, as the console's contract says, where a schema would answer 422.
const IncidentQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(
    Type.String({ description: 'open, acknowledged or resolved; several as a comma list' }),
  ),
  severity: Type.Optional(
    Type.String({ description: 'P0, P1, P2 or P3; several as a comma list' }),
  ),
  namespace: Type.Optional(Type.String()),
  alert_type: Type.Optional(Type.String()),
  fingerprint: Type.Optional(Type.String()),
  q: Type.Optional(
    Type.String({
      description: `search text (at most ${SEARCH_MAX_LENGTH} characters): a substring, in any case, of the alert name, namespace, workload, id, fingerprint or the labels' JSON text; \`%\`, \`_\` and \`\\\` are literal`,
    }),
  ),
  since: Type.Optional(
    Type.String({
      description: 'ISO 8601 date-time with a zone: incidents last seen at or after it',
    }),
  ),
  until: Type.Optional(
    Type.String({
      description: 'ISO 8601 date-time with a zone: incidents last seen at or before it',
    }),
  ),
  order: Type.Optional(
    Type.String({
      description:
        '`recent` (default): newest first; `urgency`: severity P0 first, then last seen newest first, then id. A cursor continues the order it came from.',
    }),
  ),
  ids: Type.Optional(
    Type.String({
      description: `a comma list of at most ${IDS_MAX} incident ids: those that exist, in the chosen order`,
    }),
  ),
});

type IncidentQuery = Static<typeof IncidentQuery>;

/** The query's filters as the records module takes them; a bad value throws its 400. */
function incidentFilters(query: IncidentQuery): IncidentFilters {
  const since = dateTime('since', query.since);
  const until = dateTime('until', query.until);
  if (since !== undefined && until !== undefined && since > until) {
    throw errors.badQuery(QUERY_PROBLEMS.sinceAfterUntil);
  }
  return {
    status: choices('status', query.status, INCIDENT_STATUSES),
    severity: choices('severity', query.severity, SEVERITIES),
    namespace: query.namespace,
    alert_type: query.alert_type,
    fingerprint: query.fingerprint,
    q: boundedText('q', query.q, SEARCH_MAX_LENGTH),
    since,
    until,
    ids: commaList('ids', query.ids, IDS_MAX),
  };
}

const IncidentCounts = Type.Object({
  open: Type.Object(
    Object.fromEntries(SEVERITIES.map((severity) => [severity, Type.Integer()])) as Record<
      (typeof SEVERITIES)[number],
      ReturnType<typeof Type.Integer>
    >,
    { description: 'incidents open or acknowledged, per severity' },
  ),
  total: Type.Integer({ description: 'incidents open or acknowledged' }),
});

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

/** Read API for what intake holds: incidents (with why they merged) and signals. */
export async function readApiRoutes(
  app: FastifyInstance,
  {
    services,
    silences,
  }: {
    services: Pick<
      Services,
      'config' | 'failures' | 'log' | 'operatorKeyFailures' | 'store' | 'stream'
    >;
    silences: SilenceMatching;
  },
) {
  const { store, stream } = services;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', requireReadApiAccess(services));

  typed.get(
    '/incidents',
    {
      schema: {
        summary: 'List incidents, newest first or most urgent first',
        description:
          'Each item is a summary; the message, labels, annotations and grouping explanation ' +
          'are on `/incidents/{id}`. Filters combine; a bad filter value is a 400 naming it.',
        tags: ['read'],
        querystring: IncidentQuery,
        response: { 200: PageOf(IncidentSummary), 400: ErrorBody },
      },
    },
    async (request) => {
      const filters = incidentFilters(request.query);
      const order = choices('order', request.query.order, INCIDENT_ORDERS);
      if (order !== undefined && order.length > 1) {
        throw errors.badQuery(QUERY_PROBLEMS.tooManyValues('order', order.length, 1));
      }
      const limit = batchLimit(request.url, filters.ids, request.query.limit);
      return listIncidents(store.db, filters, { ...request.query, limit, order: order?.[0] });
    },
  );

  typed.get(
    '/incidents/counts',
    {
      schema: {
        summary: 'How many incidents are open or acknowledged, per severity',
        tags: ['read'],
        response: { 200: IncidentCounts },
      },
    },
    async () => {
      const counts = await countUnresolvedBySeverity(store.db);
      const open = Object.fromEntries(
        SEVERITIES.map((severity) => [severity, counts.get(severity) ?? 0]),
      ) as Record<(typeof SEVERITIES)[number], number>;
      return { open, total: [...counts.values()].reduce((sum, n) => sum + n, 0) };
    },
  );

  typed.get(
    '/incidents/:id',
    {
      schema: {
        summary: 'One incident with its grouping explanation, latest alerts and silences',
        tags: ['read'],
        params: Type.Object({ id: Type.String() }),
        response: { 200: IncidentWithSilences, 404: ErrorBody },
      },
    },
    async (request) => {
      const detail = await incidentWithSilences(store.db, silences, request.params.id);
      if (!detail) throw errors.notFound('incident_not_found', request.params.id);
      return detail;
    },
  );

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

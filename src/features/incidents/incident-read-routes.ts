import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { errors, QUERY_PROBLEMS } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import { ErrorBody } from '../../http/error-body.js';
import { batchLimit, PageOf, PageQuery } from '../../http/pagination.js';
import { boundedText, choices, commaList, dateTime } from '../../http/query-values.js';
import type { Services } from '../../services.js';
import { countUnresolvedBySeverity } from './incident-counts.js';
import { IncidentSummary } from './incident-detail.js';
import { INCIDENT_ORDERS, type IncidentFilters } from './incident-query.js';
import { type IncidentStatus, listIncidents } from './incident-records.js';
import {
  IncidentWithSilences,
  incidentWithSilences,
  type SilenceMatching,
} from './incident-with-silences.js';

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

/** The incidents as the console and the read API see them: a page, the counts, one. */
export async function incidentReadRoutes(
  app: FastifyInstance,
  {
    services,
    silences,
  }: {
    services: Pick<Services, 'config' | 'failures' | 'log' | 'operatorKeyFailures' | 'store'>;
    silences: SilenceMatching;
  },
) {
  const { store } = services;
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
}

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { type Static, Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import { PageOf, PageQuery } from '../../http/pagination.js';
import { NullableString } from '../../http/schema-types.js';
import type { Services } from '../../services.js';
import {
  externalEventJson,
  findExternalEvent,
  listExternalEvents,
} from './external-event-reads.js';

const StringMap = Type.Record(Type.String(), Type.String());

const ExternalEventSummary = Type.Object({
  id: Type.String(),
  project: Type.String(),
  provider: Type.String(),
  stage: Type.String(),
  issue_id: Type.String(),
  title: Type.String(),
  severity: Type.String(),
  namespace: Type.String(),
  target_resource: Type.String(),
  fingerprint: Type.String(),
  source_url: NullableString,
  labels: StringMap,
  annotations: StringMap,
  operator_id: NullableString,
  auth_method: NullableString,
  approval_id: NullableString,
  created_at: Type.String({ format: 'date-time' }),
});

const ExternalEventDetail = Type.Object({
  ...ExternalEventSummary.properties,
  payload: Type.Unknown({ description: 'the delivery body as received' }),
});

/**
 * Read API over the recorded stages of error-tracker deliveries: the list shows summaries,
 * the detail route the full event with its payload.
 */
export async function registerExternalEventRoutes(
  app: FastifyInstance,
  services: Pick<Services, 'config' | 'failures' | 'log' | 'operatorKeyFailures' | 'store'>,
) {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = services.store;

  typed.get(
    '/external-alert-events',
    {
      onRequest: requireReadApiAccess(services),
      schema: {
        summary: 'Every recorded stage of every error-tracker delivery, newest first',
        description: 'Each item without its payload; `/external-alert-events/{id}` has it.',
        tags: ['read'],
        querystring: Type.Object({
          ...PageQuery,
          stage: Type.Optional(Type.String()),
          provider: Type.Optional(Type.String()),
          issue_id: Type.Optional(Type.String()),
        }),
        response: { 200: PageOf(ExternalEventSummary) },
      },
    },
    async (request) => {
      const { stage, provider, issue_id } = request.query;
      return listExternalEvents(db, { stage, provider, issue_id }, request.query);
    },
  );

  typed.get(
    '/external-alert-events/:id',
    {
      onRequest: requireReadApiAccess(services),
      schema: {
        summary: 'One recorded stage of an error-tracker delivery, with its payload',
        tags: ['read'],
        params: Type.Object({ id: Type.String() }),
        response: { 200: ExternalEventDetail },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const stored = await findExternalEvent(db, id);
      if (!stored) throw errors.notFound('external_event_not_found', id);
      // The same document already serialized: sent as text, the payload is never parsed and
      // re-serialized (the type says what the text holds).
      const text = externalEventJson(stored) as unknown as Static<typeof ExternalEventDetail>;
      return reply.type('application/json; charset=utf-8').send(text);
    },
  );
}

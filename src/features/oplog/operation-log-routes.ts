import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requireReadApiAccess } from '../../http/access-guards.js';
import type { GuardContext } from '../../http/credential-guard.js';
import { PageOf, PageQuery } from '../../http/pagination.js';
import { NullableString, StringEnum } from '../../http/schema-types.js';
import type { Services } from '../../services.js';
import { listOperations, OPERATION_TYPES, verifyOperationChain } from './operation-log.js';

/**
 * An entry as the list shows it: whole. Every field is spec'd for the list, and the large
 * one, `context`, is bounded per entry by what a request could carry; the page's byte budget
 * bounds the page.
 */
const OperationEntry = Type.Object({
  id: Type.String(),
  type: Type.String(),
  incident_id: NullableString,
  approval_id: NullableString,
  actor: Type.String(),
  action_detail: Type.String(),
  success: Type.Boolean(),
  error_message: NullableString,
  context: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
  hash: Type.String(),
  prev_hash: Type.String(),
});

/**
 * Spec, Automatic repair (operation-log entries): the paginated list and the chain check. Read API, so the console
 * token guards both (CONTRACT, Extensions: CONSOLE_TOKEN).
 */
export async function operationLogRoutes(
  app: FastifyInstance,
  { services }: { services: GuardContext & Pick<Services, 'store'> },
) {
  const { store } = services;
  app.addHook('onRequest', requireReadApiAccess(services));

  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/operation-log',
    {
      schema: {
        summary: 'List operation-log entries, newest first',
        tags: ['read'],
        querystring: Type.Object({
          ...PageQuery,
          approval_id: Type.Optional(Type.String()),
          incident_id: Type.Optional(Type.String()),
          type: Type.Optional(StringEnum(OPERATION_TYPES)),
        }),
        response: { 200: PageOf(OperationEntry) },
      },
    },
    async (request) => {
      const { approval_id, incident_id, type } = request.query;
      return listOperations(store.db, { approval_id, incident_id, type }, request.query);
    },
  );

  app.get(
    '/operation-log/verify',
    {
      schema: {
        summary: 'Recompute the hash chain of the whole operation log',
        description:
          'Each entry carries the hash of the previous one; intact is false from the first ' +
          'entry whose content or link does not hold.',
        tags: ['read'],
        response: {
          200: Type.Object({
            intact: Type.Boolean(),
            entries: Type.Integer(),
            first_broken_id: NullableString,
            reason: NullableString,
          }),
        },
      },
    },
    () => verifyOperationChain(store.db),
  );
}

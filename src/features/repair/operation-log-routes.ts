import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requireConsoleToken } from '../../http/console-auth.js';
import { listNewestFirst, PageQuery } from '../../http/pagination.js';
import { StringEnum } from '../../http/schema-types.js';
import type { Services } from '../../services.js';
import { OPERATION_TYPES, operationView, verifyOperationChain } from './operation-log.js';

interface OperationLogQuery {
  limit?: number;
  cursor?: string;
  approval_id?: string;
  incident_id?: string;
  type?: string;
}

/**
 * Issue 4, Operation log: the paginated list and the chain check. Read API, so the console
 * token guards both (CONTRACT, Extensions: CONSOLE_TOKEN).
 */
export async function operationLogRoutes(
  app: FastifyInstance,
  { services }: { services: Services },
) {
  const { store } = services;
  app.addHook('onRequest', requireConsoleToken(services.config.consoleToken));

  app.get(
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
      },
    },
    async (request) => {
      const query = request.query as OperationLogQuery;
      const page = await listNewestFirst(
        store.db,
        'operation_log',
        { approval_id: query.approval_id, incident_id: query.incident_id, type: query.type },
        query,
      );
      return { items: page.items.map(operationView), next_cursor: page.next_cursor };
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
      },
    },
    () => verifyOperationChain(store.db),
  );
}

import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireConsoleToken } from '../../http/console-auth.js';
import { listNewestFirst, PageQuery } from '../../http/pagination.js';
import { StringEnum } from '../../http/schema-types.js';
import type { Services } from '../../services.js';
import { APPROVAL_STATUSES, approvalFromRow, findApproval } from './approval-records.js';

export async function approvalRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { store } = services;
  app.addHook('onRequest', requireConsoleToken(services.config.consoleToken));

  app.get(
    '/approvals',
    {
      schema: {
        summary: 'List approvals, newest first, optionally by status',
        tags: ['read'],
        querystring: Type.Object({
          ...PageQuery,
          status: Type.Optional(StringEnum(APPROVAL_STATUSES)),
          incident_id: Type.Optional(Type.String()),
        }),
      },
    },
    async (request) => {
      const query = request.query as {
        limit?: number;
        cursor?: string;
        status?: string;
        incident_id?: string;
      };
      const page = await listNewestFirst(
        store.db,
        'approvals',
        { status: query.status, incident_id: query.incident_id },
        query,
      );
      return { items: page.items.map(approvalFromRow), next_cursor: page.next_cursor };
    },
  );

  app.get(
    '/approvals/:id',
    {
      schema: {
        summary: 'One approval with every decision and status move on it',
        tags: ['read'],
        params: Type.Object({ id: Type.String() }),
      },
    },
    async (request) => {
      const { id } = request.params as { id: string };
      const approval = await findApproval(store.db, id);
      if (!approval) throw errors.notFound('Approval', id);
      // Who moved it, when, and from which channel (chat, auto-repair, …).
      const decisions = await store.db
        .selectFrom('approval_decisions')
        .select(['actor', 'decision', 'channel', 'from_status', 'to_status', 'created_at'])
        .where('approval_id', '=', id)
        .orderBy('seq')
        .execute();
      return {
        ...approval,
        decisions: decisions.map((row) => ({
          ...row,
          created_at: new Date(row.created_at).toISOString(),
        })),
      };
    },
  );
}

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import { PageOf, PageQuery } from '../../http/pagination.js';
import { NullableString, StringEnum } from '../../http/schema-types.js';
import type { Services } from '../../services.js';
import { decisionsOf } from './approval-decision-records.js';
import { APPROVAL_STATUSES } from './approval-domain.js';
import { signersNeeded } from './approval-moves.js';
import { findApproval, listApprovals } from './approval-records.js';

const Status = StringEnum(APPROVAL_STATUSES);
const FreeFormObject = Type.Record(Type.String(), Type.Unknown());

const ApprovalSummary = Type.Object({
  id: Type.String(),
  incident_id: NullableString,
  status: Status,
  risk_level: Type.String(),
  action: Type.String(),
  requested_by: Type.String(),
  signers: Type.Integer({ description: 'distinct people who approved so far' }),
  signers_needed: Type.Integer({ description: 'signatures that approve it: 2 when critical' }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const ApprovalDetail = Type.Object({
  id: Type.String(),
  incident_id: NullableString,
  status: Status,
  risk_level: Type.String(),
  action: Type.String(),
  description: Type.String(),
  requested_by: Type.String(),
  metadata: FreeFormObject,
  blast_radius: FreeFormObject,
  dry_run_checks: Type.Array(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  decisions: Type.Array(
    Type.Object({
      actor: Type.String(),
      decision: Type.String(),
      channel: Type.String(),
      from_status: Type.String(),
      to_status: Type.String(),
      created_at: Type.String({ format: 'date-time' }),
    }),
  ),
});

export async function approvalRoutes(app: FastifyInstance, { services }: { services: Services }) {
  const { store } = services;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', requireReadApiAccess(services));

  typed.get(
    '/approvals',
    {
      schema: {
        summary: 'List approvals, newest first, optionally by status',
        description:
          'Each item is a summary; metadata, blast radius, dry-run checks and the description ' +
          'are on `/approvals/{id}`.',
        tags: ['read'],
        querystring: Type.Object({
          ...PageQuery,
          status: Type.Optional(Status),
          incident_id: Type.Optional(Type.String()),
        }),
        response: { 200: PageOf(ApprovalSummary) },
      },
    },
    async (request) => {
      const { status, incident_id } = request.query;
      return listApprovals(store.db, { status, incident_id }, request.query, (summary) => ({
        ...summary,
        signers_needed: signersNeeded(summary.risk_level),
      }));
    },
  );

  typed.get(
    '/approvals/:id',
    {
      schema: {
        summary: 'One approval with every decision and status move on it',
        tags: ['read'],
        params: Type.Object({ id: Type.String() }),
        response: { 200: ApprovalDetail },
      },
    },
    async (request) => {
      const { id } = request.params;
      const approval = await findApproval(store.db, id);
      if (!approval) throw errors.notFound('Approval', id);
      // Who moved it, when, and from which channel (chat, auto-repair, …).
      const decisions = await decisionsOf(store.db, id);
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

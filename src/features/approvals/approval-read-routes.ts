import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import { ErrorBody } from '../../http/error-body.js';
import { batchLimit, PageOf, PageQuery } from '../../http/pagination.js';
import { commaList } from '../../http/query-values.js';
import { NullableString, StringEnum } from '../../http/schema-types.js';
import type { Executor } from '../../ports/executor.js';
import type { Db } from '../../ports/store.js';
import type { Services } from '../../services.js';
import { incidentHeadlinesOf } from '../incidents/incident-records.js';
import { autoRepairDecisionOf, latestExecutorsOf } from '../oplog/operation-reads.js';
import { decisionsOf } from './approval-decision-records.js';
import { APPROVAL_STATUSES } from './approval-domain.js';
import { signersNeeded } from './approval-moves.js';
import { findApproval, listApprovals } from './approval-records.js';

/**
 * The read API of approvals. Each one is shown with its incident and what its execution and
 * auto-repair evaluation recorded, so it is read here, above approvals, incidents and the
 * operation log (STYLE, Habits: features call downward only).
 */

/** CONTRACT, Operator console: the most ids one batch read names. */
const IDS_MAX = 100;
const DRY_RUN: Executor['name'] = 'dry-run';

const Status = StringEnum(APPROVAL_STATUSES);
const FreeFormObject = Type.Record(Type.String(), Type.Unknown());

const Related = {
  signers: Type.Integer({ description: 'distinct people who approved so far' }),
  signers_needed: Type.Integer({ description: 'signatures that approve it: 2 when critical' }),
  signed_by: Type.Array(Type.String(), {
    description: 'the actors whose approval counted, in the order they signed',
  }),
  incident: Type.Union(
    [
      Type.Object({
        alert_name: Type.String(),
        namespace: Type.String(),
        severity: Type.String(),
        status: Type.String(),
      }),
      Type.Null(),
    ],
    { description: 'its incident; null for an approval without one (the error tracker)' },
  ),
  dry_run: Type.Boolean({
    description: 'its latest execution was a dry run: the steps were recorded, nothing changed',
  }),
};

const ApprovalSummary = Type.Object({
  id: Type.String(),
  incident_id: NullableString,
  status: Status,
  risk_level: Type.String(),
  action: Type.String(),
  requested_by: Type.String(),
  ...Related,
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});

const AutoRepair = Type.Union(
  [
    Type.Object({
      allowed: Type.Boolean(),
      blocked_by: NullableString,
      reason: Type.String(),
    }),
    Type.Null(),
  ],
  { description: 'what its auto-repair evaluation decided; null before one (or for none)' },
);

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
  ...Related,
  auto_repair: AutoRepair,
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

/** Of some approvals: their incidents and latest executors, in two statements however many. */
async function relatedOf(
  db: Db,
  approvals: ReadonlyArray<{ id: string; incident_id: string | null }>,
) {
  const incidentIds = [...new Set(approvals.flatMap((approval) => approval.incident_id ?? []))];
  const [incidents, executors] = await Promise.all([
    incidentHeadlinesOf(db, incidentIds),
    latestExecutorsOf(
      db,
      approvals.map((approval) => approval.id),
    ),
  ]);
  return (approval: { id: string; incident_id: string | null; risk_level: string }) => ({
    signers_needed: signersNeeded(approval.risk_level),
    incident: (approval.incident_id && incidents.get(approval.incident_id)) || null,
    dry_run: executors.get(approval.id) === DRY_RUN,
  });
}

/** The recorded auto-repair decision as the console shows it; null when there is none. */
function autoRepairOf(decision: unknown) {
  if (typeof decision !== 'object' || decision === null) return null;
  const { can_auto_repair, blocked_by, reason } = decision as Record<string, unknown>;
  return {
    allowed: can_auto_repair === true,
    blocked_by: typeof blocked_by === 'string' ? blocked_by : null,
    reason: typeof reason === 'string' ? reason : '',
  };
}

export async function approvalReadRoutes(
  app: FastifyInstance,
  {
    services,
  }: { services: Pick<Services, 'config' | 'failures' | 'log' | 'operatorKeyFailures' | 'store'> },
) {
  const { store } = services;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', requireReadApiAccess(services));

  typed.get(
    '/approvals',
    {
      schema: {
        summary: 'List approvals, newest first, optionally by status, incident or ids',
        description:
          'Each item is a summary; metadata, blast radius, dry-run checks and the description ' +
          'are on `/approvals/{id}`.',
        tags: ['read'],
        querystring: Type.Object({
          ...PageQuery,
          status: Type.Optional(Status),
          incident_id: Type.Optional(Type.String()),
          ids: Type.Optional(
            Type.String({
              description: `a comma list of at most ${IDS_MAX} approval ids: those that exist, newest first (a bad list is a 400)`,
            }),
          ),
        }),
        response: { 200: PageOf(ApprovalSummary), 400: ErrorBody },
      },
    },
    async (request) => {
      const { status, incident_id } = request.query;
      const ids = commaList('ids', request.query.ids, IDS_MAX);
      // A batch read by id returns every approval it names unless told otherwise.
      const paging = { ...request.query, limit: batchLimit(request.url, ids, request.query.limit) };
      return listApprovals(store.db, { status, incident_id, ids }, paging, async (page) => {
        const related = await relatedOf(store.db, page);
        return page.map((summary) => ({ ...summary, ...related(summary) }));
      });
    },
  );

  typed.get(
    '/approvals/:id',
    {
      schema: {
        summary: 'One approval with every decision and status move on it',
        tags: ['read'],
        params: Type.Object({ id: Type.String() }),
        response: { 200: ApprovalDetail, 404: ErrorBody },
      },
    },
    async (request) => {
      const { id } = request.params;
      const approval = await findApproval(store.db, id);
      if (!approval) throw errors.notFound('approval_not_found', id);
      // Who moved it, when, and from which channel (chat, auto-repair, …).
      const [decisions, related, autoRepair] = await Promise.all([
        decisionsOf(store.db, id),
        relatedOf(store.db, [approval]),
        autoRepairDecisionOf(store.db, id),
      ]);
      const signedBy = decisions
        .filter((row) => row.decision === 'approve')
        .map((row) => row.actor);
      return {
        ...approval,
        signers: signedBy.length,
        signed_by: signedBy,
        ...related(approval),
        auto_repair: autoRepairOf(autoRepair),
        decisions: decisions.map((row) => ({
          ...row,
          created_at: new Date(row.created_at).toISOString(),
        })),
      };
    },
  );
}

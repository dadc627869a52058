import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireOperator, requireReadApiAccess } from '../../http/access-guards.js';
import { headerText } from '../../http/credential-guard.js';
import { ErrorBody } from '../../http/error-body.js';
import { StringEnum } from '../../http/schema-types.js';
import { type DecisionDeps, decideApproval } from './decide-approval.js';
import { refusalCode, refusalMessage } from './decision-refusals.js';

const Decision = Type.Object(
  { decision: StringEnum(['approve', 'reject'] as const) },
  { additionalProperties: false },
);

const DecisionAnswer = Type.Object({
  ok: Type.Boolean(),
  message: Type.String(),
  approval_id: Type.String(),
  status: Type.String(),
  execution_triggered: Type.Optional(Type.Boolean()),
  actor: Type.String(),
  channel: Type.String(),
});

/**
 * CONTRACT, Operator console: approve or reject from the console as a named operator. The decision
 * is recorded as `console_<operator id>`, channel `console`, under the same rules as chat
 * (one signature, two distinct signers for critical, nothing on a decided approval), and the
 * chat cards show it.
 */
export async function approvalDecisionRoutes(
  untyped: FastifyInstance,
  options: { deps: DecisionDeps },
) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = options.deps;
  app.addHook('onRequest', requireReadApiAccess(services));
  app.addHook('onRequest', requireOperator(services));

  app.post(
    '/approvals/:id/decision',
    {
      schema: {
        summary: 'Approve or reject an approval as an operator (the console)',
        description:
          'Needs `x-operator-id` and `x-operator-key` from OPERATOR_KEYS (and the console token when CONSOLE_TOKEN is set). Recorded as `console_<id>`, channel `console`.',
        tags: ['approvals'],
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        body: Decision,
        response: {
          200: DecisionAnswer,
          401: ErrorBody,
          404: ErrorBody,
          409: ErrorBody,
          429: ErrorBody,
        },
      },
    },
    async (request) => {
      // requireOperator checked this header against OPERATOR_KEYS.
      const operator = headerText(request, 'x-operator-id') ?? '';
      const approvalId = request.params.id;
      const actor = `console_${operator}`;
      const outcome = await decideApproval(options.deps, approvalId, request.body.decision, {
        actor,
        channel: 'console',
      });
      if (!outcome.ok) {
        throw errors.decisionRefused(
          refusalCode(outcome.refusal),
          refusalMessage(approvalId, outcome.refusal),
        );
      }
      return {
        ok: true,
        message: request.body.decision === 'approve' ? 'Approved' : 'Rejected',
        approval_id: approvalId,
        status: outcome.status,
        ...(request.body.decision === 'approve'
          ? { execution_triggered: outcome.execution_triggered }
          : {}),
        actor,
        channel: 'console',
      };
    },
  );
}

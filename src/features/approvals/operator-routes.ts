import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requireOperator } from '../../http/access-guards.js';
import type { GuardContext } from '../../http/credential-guard.js';
import { headerText } from '../../http/credential-guard.js';
import { ErrorBody } from '../../http/error-body.js';

/**
 * CONTRACT, Operator console: `GET /operators/me` tells the console at sign-in whether the
 * operator's id and key are right, rather than at the first decision.
 */
export async function operatorRoutes(
  untyped: FastifyInstance,
  options: { services: GuardContext },
) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/operators/me',
    {
      schema: {
        summary: 'Check operator credentials (the console sign-in)',
        description: 'Needs `x-operator-id` and `x-operator-key` from OPERATOR_KEYS.',
        tags: ['approvals'],
        response: { 200: Type.Object({ id: Type.String() }), 401: ErrorBody, 429: ErrorBody },
      },
      onRequest: requireOperator(options.services),
    },
    // requireOperator checked this header against OPERATOR_KEYS.
    async (request) => ({ id: headerText(request, 'x-operator-id') ?? '' }),
  );
}

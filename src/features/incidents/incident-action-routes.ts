import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireOperator, requireReadApiAccess } from '../../http/access-guards.js';
import { headerText } from '../../http/credential-guard.js';
import { ErrorBody } from '../../http/error-body.js';
import type { Services } from '../../services.js';
import {
  acknowledgeIncident,
  type IncidentMoveDeps,
  type MoveResult,
  resolveIncident,
} from './incident-moves.js';
import {
  IncidentWithSilences,
  incidentWithSilences,
  type SilenceMatching,
} from './incident-with-silences.js';

function refused(id: string, result: Extract<MoveResult, { ok: false }>) {
  switch (result.refusal) {
    case 'not_found':
      return errors.notFound('incident_not_found', id);
    case 'already_acknowledged':
      return errors.incidentAlreadyAcknowledged();
    case 'already_resolved':
      return errors.incidentAlreadyResolved();
  }
}

/**
 * CONTRACT, Incident lifecycle: an operator acknowledges ("I'm on it") or resolves ("this is
 * done") an incident with the console's operator credentials; the answer is the incident.
 */
export async function incidentActionRoutes(
  untyped: FastifyInstance,
  options: {
    services: Pick<Services, 'config' | 'failures' | 'log' | 'operatorKeyFailures' | 'store'>;
    deps: IncidentMoveDeps;
    silences: SilenceMatching;
  },
) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = options;
  app.addHook('onRequest', requireReadApiAccess(services));
  app.addHook('onRequest', requireOperator(services));
  const moves = { acknowledge: acknowledgeIncident, resolve: resolveIncident } as const;
  for (const [action, move] of Object.entries(moves)) {
    app.post(
      `/incidents/:id/${action}`,
      {
        schema: {
          summary: `${action === 'acknowledge' ? 'Acknowledge' : 'Resolve'} an incident as an operator`,
          description:
            'Needs `x-operator-id` and `x-operator-key` from OPERATOR_KEYS (and the console token when CONSOLE_TOKEN is set); the actor is `console_<id>`.',
          tags: ['read'],
          params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
          response: {
            200: IncidentWithSilences,
            401: ErrorBody,
            404: ErrorBody,
            409: ErrorBody,
            429: ErrorBody,
          },
        },
      },
      async (request) => {
        const { id } = request.params;
        // requireOperator checked this header against OPERATOR_KEYS.
        const actor = `console_${headerText(request, 'x-operator-id') ?? ''}`;
        const result = await move(options.deps, id, actor);
        if (!result.ok) throw refused(id, result);
        const detail = await incidentWithSilences(services.store.db, options.silences, id);
        if (!detail) throw errors.notFound('incident_not_found', id);
        return detail;
      },
    );
  }
}

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errors } from '../../errors.js';
import { bearerToken } from '../../http/access-guards.js';
import { type GuardContext, guarded } from '../../http/credential-guard.js';
import type { Credential } from '../../ports/credential-failures.js';
import type { Services } from '../../services.js';
import { equalInConstantTime } from '../../support/constant-time.js';
import {
  AlertDeliveryBody,
  AlertDeliveryResponses,
  acceptAlertDelivery,
  validateLater,
} from './alert-delivery.js';
import type { AlertIntake } from './alert-intake.js';
import { acceptJsonOfAnyType, requireJsonBody } from './signed-json.js';

/** The services this file's functions use. */
type ReceiverRoutesServices = Pick<Services, 'config' | 'failures' | 'log' | 'operatorKeyFailures'>;

/** The OpenAPI security scheme of this route, declared in app.ts's swagger options. */
export const RECEIVER_TOKEN_SCHEME = 'receiverToken';

/**
 * CONTRACT, Native receivers: `Authorization: Bearer <token>` with one of RECEIVER_TOKENS,
 * which is what Alertmanager's `http_config.authorization` and Grafana's authorization
 * header send (neither can sign a body). Unset, `prod` refuses every delivery.
 */
export function requireReceiverToken(context: GuardContext) {
  const { config } = context;
  const tokens = config.receiverTokens ?? [];
  if (tokens.length === 0 && config.appEnv !== 'prod') return async () => undefined;
  const credential: Credential = { kind: 'receiver token' };
  return guarded(context, (request) => {
    if (tokens.length === 0) {
      return { credential, refusal: { error: errors.receiverTokensMissing(), bearer: true } };
    }
    const header = request.headers.authorization;
    const given = bearerToken(header) ?? '';
    // Every token is compared, so the time taken does not tell which one came close.
    let accepted = false;
    for (const token of tokens) accepted = equalInConstantTime(given, token) || accepted;
    if (accepted) return { credential };
    const error = errors.receiverTokenInvalid();
    return { credential, refusal: { error, bearer: true, tried: header !== undefined } };
  });
}

/**
 * The scope of a route that senders authenticated by RECEIVER_TOKENS post to: a sender
 * without the token is refused before its body is read; Alertmanager, Grafana and Prometheus
 * send application/json, but the body is read as JSON whatever it declares, as on
 * /webhooks/alerts, so every alert route answers one body the same way.
 */
export function takeReceiverDeliveries(
  scope: FastifyInstance,
  services: ReceiverRoutesServices,
): void {
  scope.addHook('onRequest', requireReceiverToken(services));
  acceptJsonOfAnyType(scope, { guarded: (services.config.receiverTokens ?? []).length > 0 });
  scope.addHook('preValidation', async (request) => requireJsonBody(request));
}

/** `POST /webhooks/alertmanager`: the alert intake for senders that authenticate by token. */
export async function receiverRoutes(
  untyped: FastifyInstance,
  { services, intake }: { services: ReceiverRoutesServices; intake: AlertIntake },
) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  takeReceiverDeliveries(app, services);
  app.post(
    '/webhooks/alertmanager',
    {
      schema: {
        summary: 'Accept an Alertmanager (version 4) or Grafana webhook, authenticated by token',
        description:
          'The bodies of `/webhooks/alerts`, with `Authorization: Bearer <token>` (one of `RECEIVER_TOKENS`) in place of a signature.',
        tags: ['webhooks'],
        security: [{ [RECEIVER_TOKEN_SCHEME]: [] }],
        body: AlertDeliveryBody,
        response: AlertDeliveryResponses,
      },
      validatorCompiler: validateLater,
    },
    async (request) => acceptAlertDelivery(intake, request.body, services.config.maxAlertsPerBody),
  );
}

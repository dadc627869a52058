import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { HttpError } from '../../errors.js';
import { requireConsoleToken } from '../../http/console-auth.js';
import { listNewestFirst, PageQuery } from '../../http/pagination.js';
import type { Services } from '../../services.js';
import { externalEventViews } from './external-event-records.js';
import { handleTrackerDelivery } from './tracker-webhook.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The error-tracker webhook; its health answer is also the service's readiness check. */
export async function errtrackerRoutes(app: FastifyInstance, { services }: { services: Services }) {
  // spec, step 1: "an unparsable body is treated as an empty object" — so is any non-object.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, raw, done) => {
    request.rawBody = raw as Buffer;
    let parsed: unknown;
    try {
      parsed = JSON.parse((raw as Buffer).toString('utf8'));
    } catch {
      parsed = {};
    }
    done(
      null,
      parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {},
    );
  });

  app.get(
    '/webhooks/errtracker/health',
    {
      schema: {
        summary: 'Error-tracker webhook health (the service readiness check)',
        tags: ['webhooks'],
        response: {
          200: Type.Object({ status: Type.Literal('ok'), webhook: Type.Literal('errtracker') }),
        },
      },
    },
    async () => ({ status: 'ok' as const, webhook: 'errtracker' as const }),
  );

  app.post(
    '/webhooks/errtracker/error',
    {
      schema: {
        summary: 'Error-tracker issue webhook: canary, signature, dedup, analysis',
        tags: ['webhooks'],
        headers: Type.Object({
          'errtracker-hook-signature': Type.Optional(Type.String()),
          'x-operator-id': Type.Optional(Type.String()),
          'x-operator-key': Type.Optional(Type.String()),
        }),
      },
    },
    async (request) => {
      try {
        return await handleTrackerDelivery(services, {
          rawBody: request.rawBody ?? Buffer.alloc(0),
          payload: request.body ?? {},
          signature: header(request, 'errtracker-hook-signature'),
          operatorId: header(request, 'x-operator-id'),
          operatorKey: header(request, 'x-operator-key'),
        });
      } catch (error) {
        if (error instanceof HttpError) throw error;
        // spec, step 8: "Any unexpected error returns 500 with the error text as detail."
        request.log.error({ err: error }, 'error-tracker delivery failed');
        throw new HttpError(500, (error as Error).message || String(error));
      }
    },
  );

  app.get(
    '/external-alert-events',
    {
      onRequest: requireConsoleToken(services.config.consoleToken),
      schema: {
        summary: 'Every recorded stage of every error-tracker delivery, newest first',
        tags: ['read'],
        querystring: Type.Object({
          ...PageQuery,
          stage: Type.Optional(Type.String()),
          provider: Type.Optional(Type.String()),
          issue_id: Type.Optional(Type.String()),
        }),
      },
    },
    async (request) => {
      const query = request.query as {
        limit?: number;
        cursor?: string;
        stage?: string;
        provider?: string;
        issue_id?: string;
      };
      const page = await listNewestFirst(
        services.store.db,
        'external_alert_events',
        { stage: query.stage, provider: query.provider, issue_id: query.issue_id },
        query,
      );
      return {
        items: await externalEventViews(services.store.db, page.items),
        next_cursor: page.next_cursor,
      };
    },
  );
}

import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import { bodyValidator } from '../../http/body-validator.js';
import type { GuardContext } from '../../http/credential-guard.js';
import { ErrorBody } from '../../http/error-body.js';
import { PageOf, PageQuery } from '../../http/pagination.js';
import { Identifier, NullableString, StringEnum } from '../../http/schema-types.js';
import { validatorCompiler } from '../../http/validator.js';
import type { Services } from '../../services.js';
import { decodeCursor, encodeCursor } from '../../support/newest-first.js';
import { FLAT_ALERT_SEVERITIES } from '../intake/normalize-alert.js';
import { requireReceiverToken } from '../intake/receiver-routes.js';
import { deleteHeartbeat, listHeartbeats } from './heartbeat-records.js';
import { type HeartbeatWatch, heartbeatView } from './heartbeat-watch.js';

const Name = Type.String({ pattern: '^[A-Za-z0-9._:-]{1,128}$' });

/** CONTRACT, Heartbeats: the optional body of a beat, with its defaults. */
const BeatBody = Type.Object(
  {
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 604_800, default: 300 })),
    severity: Type.Optional(StringEnum(FLAT_ALERT_SEVERITIES, { default: 'warning' })),
    namespace: Type.Optional(Identifier({ minLength: 1, default: 'default' })),
  },
  { additionalProperties: false },
);
const validateBeat = bodyValidator<{
  timeout_seconds: number;
  severity: string;
  namespace: string;
}>(BeatBody);

const Heartbeat = Type.Object({
  name: Type.String(),
  status: Type.String({ description: 'ok or expired' }),
  timeout_seconds: Type.Integer(),
  last_beat_at: Type.String({ format: 'date-time' }),
  expires_at: Type.String({ format: 'date-time' }),
  incident_id: NullableString,
});

/** The credentials the routes check, and the heartbeats' records. */
export type HeartbeatRouteDeps = GuardContext & Pick<Services, 'store'>;

/** CONTRACT, Heartbeats: beats, the list, and stopping a watch. */
export async function heartbeatRoutes(
  untyped: FastifyInstance,
  { services, watch }: { services: HeartbeatRouteDeps; watch: HeartbeatWatch },
) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  app.post(
    '/heartbeats/:name',
    {
      schema: {
        summary: 'Record a beat; silence past timeout_seconds opens a HeartbeatMissing incident',
        tags: ['heartbeats'],
        params: Type.Object({ name: Name }),
        body: Type.Optional(BeatBody),
        response: {
          200: Type.Omit(Heartbeat, ['incident_id']),
          400: ErrorBody,
          401: ErrorBody,
          415: ErrorBody,
          422: ErrorBody,
        },
      },
      onRequest: requireReceiverToken(services),
      // A beat may carry no body at all; a body is checked against BeatBody below.
      validatorCompiler: (definition) =>
        definition.httpPart === 'body'
          ? (value: unknown) => ({ value })
          : validatorCompiler(definition),
    },
    async (request) => {
      const body = request.body === undefined || request.body === null ? {} : request.body;
      const settings = validateBeat(body);
      const row = await watch.beat(request.params.name, settings);
      const { incident_id: _, ...view } = heartbeatView(row);
      return view;
    },
  );

  app.get(
    '/heartbeats',
    {
      schema: {
        summary: 'Heartbeats watched: ok or expired, the last beat and when it expires',
        tags: ['heartbeats'],
        querystring: Type.Object(PageQuery),
        response: { 200: PageOf(Heartbeat), 401: ErrorBody, 403: ErrorBody },
      },
      onRequest: requireReadApiAccess(services),
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const rows = await listHeartbeats(
        services.store.db,
        decodeCursor(request.query.cursor),
        limit + 1,
      );
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      return {
        items: page.map(heartbeatView),
        next_cursor: rows.length > limit && last ? encodeCursor(last.name) : null,
      };
    },
  );

  app.delete(
    '/heartbeats/:name',
    {
      schema: {
        summary: 'Stop watching a heartbeat',
        tags: ['heartbeats'],
        params: Type.Object({ name: Name }),
        response: {
          200: Type.Object({ name: Type.String() }),
          401: ErrorBody,
          403: ErrorBody,
          404: ErrorBody,
        },
      },
      // CONTRACT, Under races, crashes and abuse: guarded as the read API is. Deleting a
      // heartbeat switches off a dead man's switch, so `prod` without CONSOLE_TOKEN refuses it.
      onRequest: requireReadApiAccess(services),
    },
    async (request) => {
      const { name } = request.params;
      if (!(await deleteHeartbeat(services.store.db, name)))
        throw errors.notFound('heartbeat_not_found', name);
      return { name };
    },
  );
}

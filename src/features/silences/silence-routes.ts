import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors, SILENCE_PROBLEMS } from '../../errors.js';
import { requireReadApiAccess } from '../../http/access-guards.js';
import type { GuardContext } from '../../http/credential-guard.js';
import { ErrorBody } from '../../http/error-body.js';
import { describeValidationIssue } from '../../http/error-handler.js';
import type { Services } from '../../services.js';
import { compileFilter, type FilterMatcher, parseFilter } from './silence-filter.js';
import { MatcherError } from './silence-matchers.js';
import { GettableSilence, gettableSilence, PostableSilence } from './silence-schema.js';
import type { Silences } from './silences.js';

const refusals = { 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
const SilenceParams = Type.Object({ silenceID: Type.String({ maxLength: 128 }) });
const OneOrMany = Type.Union([Type.String(), Type.Array(Type.String())]);
const SilencesQuery = Type.Object({
  filter: Type.Optional(OneOrMany),
  creator: Type.Optional(OneOrMany),
});

const listOf = (value: string | string[] | undefined) =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

function filterOf(texts: readonly string[]): FilterMatcher[] {
  try {
    return compileFilter(texts.flatMap(parseFilter));
  } catch (error) {
    if (error instanceof MatcherError) throw errors.silenceInvalid(error.message);
    throw errors.silenceInvalid(SILENCE_PROBLEMS.badFilter((error as Error).message));
  }
}

/**
 * CONTRACT, Silences: Alertmanager's API v2 for silences, mounted at
 * `/api/v1/alertmanager/api/v2`, behind the read API's console token. Refused bodies are
 * 400, as Alertmanager answers them, not the 422 of the service's own routes.
 */
export const silenceRoutes: FastifyPluginAsyncTypebox<{
  services: GuardContext & Pick<Services, 'clock'>;
  silences: Silences;
}> = async (app, { services, silences }) => {
  app.addHook('onRequest', requireReadApiAccess(services));

  app.post(
    '/silences',
    {
      schema: {
        summary: 'Create a silence, or replace the one named by id (Alertmanager API v2)',
        tags: ['silences'],
        body: PostableSilence,
        response: {
          200: Type.Object({ silenceID: Type.String() }),
          400: ErrorBody,
          404: ErrorBody,
          413: ErrorBody,
          415: ErrorBody,
          ...refusals,
        },
      },
      attachValidation: true,
    },
    async (request) => {
      if (request.validationError) {
        const issue = request.validationError.validation[0];
        throw errors.silenceInvalid(
          issue ? describeValidationIssue('body', issue) : request.validationError.message,
        );
      }
      return { silenceID: await silences.save(request.body) };
    },
  );

  app.get(
    '/silences',
    {
      schema: {
        summary: 'List silences as Alertmanager does: active, then pending, then expired',
        tags: ['silences'],
        querystring: SilencesQuery,
        response: { 200: Type.Array(GettableSilence), 400: ErrorBody, ...refusals },
      },
    },
    async (request) => {
      const filter = filterOf(listOf(request.query.filter));
      const listed = await silences.list(filter, listOf(request.query.creator));
      const now = services.clock.now();
      return listed.map((silence) => gettableSilence(silence, now));
    },
  );

  app.get(
    '/silence/:silenceID',
    {
      schema: {
        summary: 'One silence (Alertmanager API v2)',
        tags: ['silences'],
        params: SilenceParams,
        response: { 200: GettableSilence, 404: ErrorBody, ...refusals },
      },
    },
    async (request) => {
      const silence = await silences.find(request.params.silenceID);
      if (!silence) throw errors.notFound('silence_not_found', request.params.silenceID);
      return gettableSilence(silence, services.clock.now());
    },
  );

  app.delete(
    '/silence/:silenceID',
    {
      schema: {
        summary: 'Expire a silence: its endsAt becomes now (Alertmanager API v2)',
        tags: ['silences'],
        params: SilenceParams,
        response: {
          200: Type.String({
            maxLength: 0,
            description: 'Expired: an empty body, as Alertmanager answers',
          }),
          404: ErrorBody,
          ...refusals,
        },
      },
    },
    async (request, reply) => {
      await silences.expire(request.params.silenceID);
      return reply.code(200).send('');
    },
  );
};

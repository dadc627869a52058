import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errors } from '../../errors.js';
import { requireConsoleToken, requireReadApiAccess } from '../../http/access-guards.js';
import { ErrorBody } from '../../http/error-body.js';
import { endStreamsOnClose } from '../../http/event-stream.js';
import { PageOf, PageQuery } from '../../http/pagination.js';
import { FreeFormMap } from '../../http/schema-types.js';
import { hijackKeepingHeaders } from '../../http/security-headers.js';
import type { Services } from '../../services.js';
import { timeOrderedId } from '../../support/time-ordered-id.js';
import { findIncident } from '../incidents/incident-records.js';
import { enqueueAnalysis } from './analysis-job.js';
import { normalizeRequest } from './analysis-request.js';
import { SEVERITIES, type Severity } from './analysis-types.js';
import { publishTaskEvent } from './run-analysis.js';
import { createTaskEventHub } from './task-event-hub.js';
import { admitTask, changeTask, findTask, listTasks, TOTAL_AGENTS } from './task-records.js';
import { prepareTaskStream } from './task-stream.js';
import { resultView, statusView } from './task-views.js';

/** docs/api.md, Analysis tasks: a comment line every 15 s keeps proxies from closing the stream. */
export const HEARTBEAT_MS = 15_000;
/** spec, Limits: "Analysis estimate: 30 seconds". */
export const ESTIMATED_SECONDS = 30;

export interface AnalysisRoutesOptions {
  services: Pick<
    Services,
    | 'bus'
    | 'clock'
    | 'config'
    | 'failures'
    | 'feed'
    | 'jobs'
    | 'log'
    | 'operatorKeyFailures'
    | 'store'
  >;
  /** Tests shorten it to see heartbeats. */
  heartbeatMs?: number;
}

const Names = Type.Unsafe<string[] | null>({ type: ['array', 'null'], items: { type: 'string' } });

const AnalyzeBody = Type.Object({
  incident_id: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] })),
  severity: Type.Optional(
    Type.Unsafe<Severity | null>({ type: ['string', 'null'], enum: [...SEVERITIES, null] }),
  ),
  affected_services: Type.Optional(Names),
  alert_names: Type.Optional(Names),
  context: Type.Optional(FreeFormMap),
});

const TaskParams = Type.Object({ task_id: Type.String() });
const NullableString = Type.Union([Type.String(), Type.Null()]);

/** spec, Analysis response. */
const AnalysisAccepted = Type.Object({
  task_id: Type.String(),
  status: Type.Literal('pending'),
  message: Type.String(),
  estimated_seconds: Type.Integer(),
});

/** spec, Task status. */
const TaskStatus = Type.Object({
  task_id: Type.String(),
  state: Type.String(),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  current_step: NullableString,
  agents_completed: Type.Integer(),
  total_agents: Type.Integer(),
  started_at: NullableString,
  completed_at: NullableString,
  error: NullableString,
});

/** spec, Task result: opinions are free-form objects. */
const TaskResult = Type.Object({
  task_id: Type.String(),
  state: Type.String(),
  consensus_id: NullableString,
  incident_id: NullableString,
  recommended_action: NullableString,
  recommended_kubectl: NullableString,
  risk_level: NullableString,
  final_reasoning: NullableString,
  consensus_score: Type.Union([Type.Number(), Type.Null()]),
  opinions: Type.Union([Type.Array(Type.Object({}, { additionalProperties: true })), Type.Null()]),
  dissenting_opinions: Type.Union([Type.Array(Type.String()), Type.Null()]),
  created_at: NullableString,
});

/** An analysis as the console lists it (kept RETENTION_MS after it finished). */
const TaskListItem = Type.Object({
  task_id: Type.String(),
  incident_id: NullableString,
  trigger: Type.String({ description: '`manual` for POST /agents/analyze' }),
  state: Type.String({ description: 'PENDING, RUNNING, COMPLETED or FAILED' }),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const EventStream = {
  description:
    'text/event-stream: a `status` event, then progress events until COMPLETED or FAILED',
  content: { 'text/event-stream': { schema: { type: 'string' } } },
};

/** A task takes about ESTIMATED_SECONDS; by then places have usually freed up. */
const ANALYSIS_RETRY_AFTER_SECONDS = ESTIMATED_SECONDS;

/** A Last-Event-ID that is not a task event number is ignored: the client starts afresh. */
function lastEventIdOf(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** spec, Endpoints, Analysis tasks. */
export async function analysisRoutes(untyped: FastifyInstance, options: AnalysisRoutesOptions) {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = options;
  const { store, clock, log } = services;
  const hub = createTaskEventHub(services.bus, (id) => findTask(store.db, id), log);
  const streamDeps = { db: store.db, hub, heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS, log };
  const streams = endStreamsOnClose(app);

  app.post(
    '/agents/analyze',
    {
      schema: {
        summary: 'Start a multi-expert analysis task in the background',
        tags: ['analysis'],
        body: AnalyzeBody,
        response: {
          200: AnalysisAccepted,
          400: ErrorBody,
          404: ErrorBody,
          422: ErrorBody,
          429: ErrorBody,
        },
      },
      onRequest: requireConsoleToken(services),
      // No body at all is a request with neither input mode: a 400, not a schema 422.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const analysis = normalizeRequest(request.body);
      if (!analysis) throw errors.analysisInputMissing();
      if (analysis.incident_id && !(await findIncident(store.db, analysis.incident_id))) {
        throw errors.notFound('incident_not_found', analysis.incident_id);
      }
      const taskId = `task-${timeOrderedId()}`;
      const now = clock.now();
      const admitted = await admitTask(store, services.config.analysisMaxInFlight, {
        id: taskId,
        request: analysis,
        incidentId: analysis.incident_id ?? null,
        now,
      });
      if (!admitted) {
        reply.header('retry-after', String(ANALYSIS_RETRY_AFTER_SECONDS));
        throw errors.analysisBusy();
      }
      try {
        await enqueueAnalysis(services, taskId);
      } catch (error) {
        // Never leave a task pending that no job will run.
        const failed = await changeTask(
          store.db,
          taskId,
          { state: 'PENDING' },
          { state: 'FAILED', error: 'Analysis could not be scheduled', completed_at: now },
          { type: 'failed', now },
        );
        if (failed) await publishTaskEvent(services, failed);
        throw error;
      }
      const about = analysis.incident_id
        ? `incident ${analysis.incident_id}`
        : (analysis.affected_services ?? []).join(', ');
      return {
        task_id: taskId,
        status: 'pending' as const,
        message: `Analysis of ${about} scheduled with ${TOTAL_AGENTS} experts`,
        estimated_seconds: ESTIMATED_SECONDS,
      };
    },
  );

  app.get(
    '/agents/tasks',
    {
      schema: {
        summary: 'List analysis tasks, newest first, optionally of one incident',
        description:
          'Tasks are kept 7 days after they finish (spec, Limits). The read API: needs the console token when CONSOLE_TOKEN is set.',
        tags: ['analysis'],
        querystring: Type.Object({
          ...PageQuery,
          incident_id: Type.Optional(
            Type.String({ description: 'only the analyses of this incident' }),
          ),
        }),
        response: { 200: PageOf(TaskListItem) },
      },
      onRequest: requireReadApiAccess(services),
    },
    async (request) =>
      listTasks(store.db, { incident_id: request.query.incident_id }, request.query),
  );

  app.get(
    '/agents/status/:task_id',
    {
      schema: {
        summary: 'Progress of an analysis task',
        tags: ['analysis'],
        params: TaskParams,
        response: { 200: TaskStatus, 404: ErrorBody },
      },
    },
    async (request) => {
      const { task_id } = request.params;
      const task = await findTask(store.db, task_id);
      if (!task) throw errors.notFound('task_not_found', task_id);
      return statusView(task);
    },
  );

  app.get(
    '/agents/result/:task_id',
    {
      schema: {
        summary: 'Consensus of a completed analysis task',
        tags: ['analysis'],
        params: TaskParams,
        response: { 200: TaskResult, 404: ErrorBody },
      },
    },
    async (request) => {
      const { task_id } = request.params;
      const task = await findTask(store.db, task_id);
      if (!task) throw errors.notFound('task_not_found', task_id);
      return resultView(task);
    },
  );

  app.get(
    '/agents/stream/:task_id',
    {
      schema: {
        summary: 'Server-sent events of an analysis task, resumable with Last-Event-ID',
        tags: ['analysis'],
        params: TaskParams,
        response: {
          200: EventStream,
          204: { description: 'every event was seen already', type: 'null' },
          404: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const { task_id } = request.params;
      const lastEventId = lastEventIdOf(request.headers['last-event-id']);
      const prepared = await prepareTaskStream(streamDeps, task_id, lastEventId);
      if (!prepared) throw errors.notFound('task_not_found', task_id);
      if (prepared.exhausted) {
        // A client that already has every event of a finished task: 204 is what tells an
        // EventSource to stop reconnecting (HTML, server-sent events).
        prepared.abandon();
        return reply.code(204).send(null);
      }
      hijackKeepingHeaders(reply);
      streams.opened(reply.raw, prepared.start(reply.raw).end);
    },
  );
}

import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { createServices, type ServiceOverrides } from './adapters/create-services.js';
import { type Background, startBackground } from './background.js';
import { weakSecrets, weakSecretWarning } from './config/secret-strength.js';
import type { Config } from './config.js';
import { analysisRoutes } from './features/analysis/analysis-routes.js';
import { approvalReadRoutes } from './features/approvals/approval-read-routes.js';
import { approvalDecisionRoutes } from './features/approvals/decision-routes.js';
import { operatorRoutes } from './features/approvals/operator-routes.js';
import { chatopsRoutes } from './features/chat/chatops-routes.js';
import { consoleRoot, consoleRoutes } from './features/console/console-routes.js';
import { errtrackerRoutes } from './features/errtracker/errtracker-routes.js';
import { createEscalation } from './features/escalation/escalation.js';
import { eventsRoutes } from './features/events/events-routes.js';
import { heartbeatRoutes } from './features/heartbeats/heartbeat-routes.js';
import { createHeartbeatWatch } from './features/heartbeats/heartbeat-watch.js';
import { incidentActionRoutes } from './features/incidents/incident-action-routes.js';
import { incidentReadRoutes } from './features/incidents/incident-read-routes.js';
import { createAlertIntake } from './features/intake/alert-intake.js';
import { loadAlertTypeRules } from './features/intake/alert-type-rules.js';
import { alertmanagerApiRoutes } from './features/intake/alertmanager-api-routes.js';
import { intakeRoutes } from './features/intake/intake-routes.js';
import { RECEIVER_TOKEN_SCHEME, receiverRoutes } from './features/intake/receiver-routes.js';
import { signalReadRoutes } from './features/intake/signal-read-routes.js';
import { inventoryRoutes } from './features/inventory/inventory-routes.js';
import { operationLogRoutes } from './features/oplog/operation-log-routes.js';
import { readbackRoutes } from './features/readbacks/readback-routes.js';
import { loadPlaybooks } from './features/repair/playbooks.js';
import { silenceRoutes } from './features/silences/silence-routes.js';
import { createSilences } from './features/silences/silences.js';
import { addressListMatcher } from './http/client-address.js';
import { refuseCrossSiteRequests } from './http/cross-site.js';
import {
  answerFrameworkError,
  MAX_PATH_SEGMENT_LENGTH,
  registerErrorHandler,
} from './http/error-handler.js';
import { prepareGracefulClose } from './http/graceful-close.js';
import { refuseUnknownHosts } from './http/host-check.js';
import { acceptStrictJson } from './http/json-body.js';
import { refuseNulInUrl } from './http/nul-in-url.js';
import { addApiSecurityHeaders, pageSecurityHeaders } from './http/security-headers.js';
import {
  capConnections,
  capConnectionsPerClient,
  connectionDeadlines,
  continueOnlyWhenBodyIsRead,
  defaultMaxConnections,
} from './http/server-limits.js';
import { validatorCompiler } from './http/validator.js';
import { lazyRequestLogger } from './observability/lazy-request-logger.js';
import { loggerOptions } from './observability/logger-options.js';
import { observabilityRoutes } from './observability/observability-routes.js';
import { readinessRoutes } from './observability/readiness.js';

export interface AppOptions {
  /** Pretty log lines for a person at a terminal (server.ts: stdout is a TTY); JSON otherwise. */
  terminal?: boolean;
}

/** Builds the whole service from a config: adapters first, then features. */
export async function buildApp(
  config: Config,
  overrides: ServiceOverrides = {},
  options: AppOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel, options.terminal ?? false),
    bodyLimit: config.bodyLimitBytes,
    // Per-request log lines cost a third of the signal throughput; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    // prepareGracefulClose answers those 503s itself, in the API's shape.
    return503OnClosing: false,
    // CONTRACT, Under races, crashes and abuse: behind the proxies of TRUST_PROXY,
    // `request.ip` is the client they forward (taken down to an IP address by
    // http/client-address.ts), so each is throttled and logged on its own, and
    // `request.host` their `X-Forwarded-Host`; anyone else's `X-Forwarded-*` is ignored.
    trustProxy: config.trustProxy.length > 0 ? config.trustProxy : false,
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT_LENGTH },
    frameworkErrors: answerFrameworkError,
    ...connectionDeadlines(config),
  }).withTypeProvider<TypeBoxTypeProvider>();
  capConnectionsPerClient(
    app.server,
    config.maxConnectionsPerClient,
    addressListMatcher(config.trustProxy),
  );
  // After the per-address cap: a connection it closes makes nobody else's room.
  capConnections(app.server, config.maxConnections ?? defaultMaxConnections(), app.log);
  continueOnlyWhenBodyIsRead(app.server);
  app.setValidatorCompiler(validatorCompiler);
  acceptStrictJson(app);
  // Before the graceful close: its 503 while closing carries the headers too.
  addApiSecurityHeaders(app);
  const handlers = prepareGracefulClose(app);

  // A bad rules file stops the start before any connection is opened.
  const alertTypeRules = loadAlertTypeRules(config.alertRulesFile);
  const playbooks = loadPlaybooks();
  const runtime = await createServices(config, app.log, overrides);
  const { services } = runtime;
  app.decorate('services', services);
  // Before the not-found handler, whose context keeps the factory set when it is registered.
  app.setChildLoggerFactory(lazyRequestLogger);
  registerErrorHandler(app, {
    bodyLimitBytes: config.bodyLimitBytes,
    isStorageFull: (error) => services.store.isStorageFull(error),
    isUnavailable: (error) => services.store.isUnavailable(error),
  });
  let background: Background | undefined;
  app.addHook('onClose', async () => {
    await handlers.drain();
    await background?.stop();
    // After the workers and the last hit counts: cards still waiting out a 429 are given up.
    escalation.cards.close();
    await runtime.close();
  });

  refuseUnknownHosts(app, config);
  refuseNulInUrl(app);
  refuseCrossSiteRequests(app);
  // In prod a weak credential stops the start (config.ts); elsewhere it is said once.
  for (const variable of weakSecrets(config)) {
    app.log.warn({ variable }, weakSecretWarning(variable));
  }
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Alert intake and agent operations',
        version: '1.0.0',
        description: 'Signed webhooks, approvals, chat gateway, analysis tasks and readbacks.',
      },
      servers: [],
      components: {
        securitySchemes: {
          [RECEIVER_TOKEN_SCHEME]: {
            type: 'http',
            scheme: 'bearer',
            description: 'One of RECEIVER_TOKENS (CONTRACT, Native receivers).',
          },
        },
      },
    },
  });
  // In a scope of its own, so the docs' page and its static files carry the page headers.
  await app.register(async (docs) => {
    docs.addHook('onRequest', pageSecurityHeaders());
    await docs.register(swaggerUi, { routePrefix: '/docs' });
  });
  await app.register(observabilityRoutes, { services });
  await app.register(consoleRoutes, { root: consoleRoot() });
  await app.register(readinessRoutes, { prefix: '/api/v1', services });
  const escalation = createEscalation(services, playbooks);
  const silences = createSilences(services);
  await silences.start();
  app.addHook('onClose', () => silences.stop());
  const intake = createAlertIntake(services, alertTypeRules, {
    silences,
    incidentMoves: escalation.incidentMoves,
    escalation,
  });
  await app.register(intakeRoutes, { prefix: '/api/v1', services, intake });
  // Heartbeats open incidents through intake, and intake's Watchdog alert beats one.
  const heartbeats = createHeartbeatWatch(services, intake, escalation.incidentMoves);
  intake.beatWatchdogWith(heartbeats);
  await app.register(receiverRoutes, { prefix: '/api/v1', services, intake });
  await app.register(heartbeatRoutes, { prefix: '/api/v1', services, watch: heartbeats });
  await app.register(alertmanagerApiRoutes, {
    prefix: '/api/v1/alertmanager/api/v2',
    services,
    intake,
  });
  await app.register(silenceRoutes, {
    prefix: '/api/v1/alertmanager/api/v2',
    services,
    silences,
  });
  await app.register(errtrackerRoutes, { prefix: '/api/v1', services });
  await app.register(incidentReadRoutes, { prefix: '/api/v1', services, silences });
  await app.register(signalReadRoutes, { prefix: '/api/v1', services });
  await app.register(eventsRoutes, { prefix: '/api/v1', services });
  await app.register(approvalReadRoutes, { prefix: '/api/v1', services });
  await app.register(approvalDecisionRoutes, { prefix: '/api/v1', deps: escalation.decisions });
  await app.register(operatorRoutes, { prefix: '/api/v1', services });
  await app.register(incidentActionRoutes, {
    prefix: '/api/v1',
    services,
    deps: escalation.incidentMoves,
    silences,
  });
  await app.register(inventoryRoutes, { prefix: '/api/v1', services });
  await app.register(readbackRoutes, { prefix: '/api/v1', services, playbooks, alertTypeRules });
  await app.register(operationLogRoutes, { prefix: '/api/v1', services });
  await app.register(analysisRoutes, { prefix: '/api/v1', services });
  await app.register(chatopsRoutes, {
    prefix: '/api/v1',
    services,
    cards: escalation.cards,
    callbacks: escalation.decisions,
    pollingActive: () => background?.pollingActive() ?? false,
  });

  app.addHook('onReady', async () => {
    background = await startBackground({ services, intake, escalation, heartbeats });
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: import('./services.js').Services;
  }
}

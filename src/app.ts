import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { ANALYZER_LIMITS } from './adapters/analyzers/resilient-analyzer.js';
import { createServices, type ServiceOverrides } from './adapters/create-services.js';
import type { Config } from './config.js';
import { approvalRoutes } from './features/approvals/approval-routes.js';
import { createCardSender } from './features/chat/card-sender.js';
import { analyzeIssue } from './features/errtracker/analyze-issue.js';
import { errtrackerRoutes } from './features/errtracker/errtracker-routes.js';
import { ANALYZE_ISSUE_JOB, type AnalyzeIssueJob } from './features/errtracker/tracker-webhook.js';
import { createAlertIntake } from './features/intake/alert-intake.js';
import { loadAlertTypeRules } from './features/intake/alert-type-rules.js';
import { intakeRoutes } from './features/intake/intake-routes.js';
import { readApiRoutes } from './features/intake/read-api-routes.js';
import { startSignalConsumer } from './features/intake/signal-consumer.js';
import { registerErrorHandler } from './http/error-handler.js';
import { prepareGracefulClose } from './http/graceful-close.js';
import { validatorCompiler } from './http/validator.js';
import { observabilityRoutes } from './observability/observability-routes.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Headers that carry secrets; pino replaces them wherever a request is logged. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-signature-256"]',
  'req.headers["errtracker-hook-signature"]',
  'req.headers["x-operator-key"]',
];

/** Builds the whole service from a config: adapters first, then features. */
export async function buildApp(
  config: Config,
  overrides: ServiceOverrides = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.logLevel, redact: REDACTED_PATHS },
    bodyLimit: BODY_LIMIT_BYTES,
    // Per-request log lines cost a third of the signal throughput; errors are still logged.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  const handlers = prepareGracefulClose(app);
  registerErrorHandler(app);

  // A bad rules file stops the start before any connection is opened.
  const alertTypeRules = loadAlertTypeRules(config.alertRulesFile);
  const runtime = await createServices(config, app.log, overrides);
  const { services } = runtime;
  app.decorate('services', services);
  app.addHook('onClose', async () => {
    await handlers.drain();
    await stopConsumer?.();
    await runtime.close();
  });

  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Alert intake and agent operations',
        version: '1.0.0',
        description: 'Signed webhooks, approvals, chat gateway, analysis tasks and readbacks.',
      },
      servers: [],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  await app.register(observabilityRoutes, { services });
  const cards = createCardSender(services);
  const intake = createAlertIntake(services, alertTypeRules);
  await app.register(intakeRoutes, { prefix: '/api/v1', services, intake });
  await app.register(errtrackerRoutes, { prefix: '/api/v1', services });
  await app.register(readApiRoutes, { prefix: '/api/v1', services });
  await app.register(approvalRoutes, { prefix: '/api/v1', services });

  let stopConsumer: (() => Promise<void>) | undefined;
  app.addHook('onReady', async () => {
    if (config.signalConsumer) stopConsumer = startSignalConsumer(services, intake);
    services.jobs.process(
      ANALYZE_ISSUE_JOB,
      (payload) => analyzeIssue(services, cards, payload as AnalyzeIssueJob),
      ANALYZER_LIMITS.concurrency,
    );
    await services.jobs.start();
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    services: import('./services.js').Services;
  }
}
